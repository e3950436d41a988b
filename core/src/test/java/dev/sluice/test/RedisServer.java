package dev.sluice.test;

import dev.sluice.internal.config.RedisAddress;
import dev.sluice.internal.config.RedisSettings;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;
import org.opentest4j.TestAbortedException;

import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * A real Redis for a test class, as a JUnit 5 extension:
 *
 * <pre>{@code
 * @RegisterExtension static RedisServer redis = RedisServer.standalone();
 * }</pre>
 *
 * <p>Where the server comes from, first match wins:
 * <ol>
 *   <li>the environment variable {@code SLUICE_TEST_REDIS_URI} ({@code redis://[user:password@]host:port[/db]}):
 *       an existing server; tests that stop, kill, pause or restart it are skipped (JUnit assumption);</li>
 *   <li>a {@code redis-server} binary on the {@code PATH} ({@code valkey-server} with
 *       {@code SLUICE_TEST_SERVER=valkey}, see {@link ServerFamily}), started on a free loopback port
 *       (see {@link RedisProcess}): everything works;</li>
 *   <li>Testcontainers' {@code redis:7} when a Docker engine answers (one container shared by the JVM): as with
 *       an existing server, lifecycle tests are skipped; with {@code SLUICE_TEST_SERVER=valkey} the tests are
 *       skipped instead, saying how to get a {@code valkey-server};</li>
 *   <li>otherwise the test fails, saying how to get a Redis.</li>
 * </ol>
 *
 * <p>Registered on a static field, the server lives for the test class; on an instance field, for one test. Before
 * each test it is brought back up if a test stopped, killed or paused it, and emptied ({@code FLUSHALL}) with its
 * statistics reset ({@code CONFIG RESETSTAT}). When a test fails, the server's log file and its last lines are
 * printed to standard error.
 *
 * <p>{@link #withArgs} always starts its own process (even when {@code SLUICE_TEST_REDIS_URI} is set), so it needs
 * the binary; without it every test of the class is skipped with the reason. Arrange server state in {@code @BeforeEach} rather than
 * {@code @BeforeAll}: Surefire silently drops a class whose {@code @BeforeAll} is skipped.
 *
 * <p>Not thread-safe for concurrent lifecycle calls; the accessors may be used from any thread.
 */
public final class RedisServer implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback,
        AfterEachCallback, TestWatcher {

    /** Name of the environment variable pointing at an existing Redis to test against. */
    public static final String URI_VARIABLE = "SLUICE_TEST_REDIS_URI";
    /** The client name of {@link #admin()}'s connections, so they can be told apart in {@code CLIENT LIST}. */
    public static final String ADMIN_CLIENT_NAME = "sluice-test-admin";

    private final List<String> args;
    private Backend backend;
    private UnifiedJedis admin;
    private boolean startedPerClass;

    private RedisServer(List<String> args) {
        this.args = List.copyOf(args);
    }

    /** A plain server: no password, no persistence. */
    public static RedisServer standalone() {
        return new RedisServer(List.of());
    }

    /**
     * A server started with extra {@code redis-server} options, e.g. {@code "--requirepass", "secret"}. Always a
     * process of its own, so it needs the binary; without it the tests are skipped.
     */
    public static RedisServer withArgs(String... args) {
        return new RedisServer(Arrays.asList(args));
    }

    // ----------------------------------------------------------------------------------------------- lifecycle

    @Override
    public void beforeAll(ExtensionContext context) {
        startedPerClass = true;
        try {
            ensureStarted();
        } catch (TestAbortedException unavailable) {
            // Surefire does not report a class aborted in beforeAll at all; beforeEach skips each test visibly.
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        shutdown();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        ensureStarted();
        if (backend.process != null) {
            backend.process.resume();
            if (!backend.process.isRunning()) {
                backend.process.restart();
            }
        }
        flushAll();
        resetStats();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (!startedPerClass) {
            shutdown();
        }
    }

    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        if (backend != null && backend.process != null) {
            System.err.println("Redis for " + context.getDisplayName() + " logged to " + backend.process.logFile()
                    + "; last lines:" + System.lineSeparator() + backend.process.logTail(30));
        }
    }

    // ----------------------------------------------------------------------------------------------- where

    public String host() {
        return ensureStarted().host;
    }

    public int port() {
        return ensureStarted().port;
    }

    /** {@code redis://host:port} (or {@code rediss://}), without credentials or database. */
    public String uri() {
        Backend b = ensureStarted();
        return (b.tls ? "rediss://" : "redis://") + b.host + ":" + b.port;
    }

    /** The password the server requires, if any. */
    public Optional<String> password() {
        return ensureStarted().password;
    }

    /** Standalone settings pointing at this server, with its credentials and database, default timeout and pool. */
    public RedisSettings settings() {
        return settings(RedisSettings.DEFAULT_TIMEOUT);
    }

    /** As {@link #settings()} with another {@code sluice.redis.timeout}. */
    public RedisSettings settings(Duration timeout) {
        Backend b = ensureStarted();
        return new RedisSettings(Optional.of(new RedisAddress(b.host, b.port)), List.of(), Optional.empty(), List.of(),
                List.of(), b.user, b.password, b.database, b.tls, timeout, RedisSettings.Pool.DEFAULT, true);
    }

    /** The process behind the server, when this fixture started it. */
    public Optional<RedisProcess> process() {
        return Optional.ofNullable(ensureStarted().process);
    }

    // ----------------------------------------------------------------------------------------------- inspection

    /**
     * A client for arranging and inspecting (not for the code under test): its connections are named
     * {@value #ADMIN_CLIENT_NAME}, are checked before use so they survive restarts, and start no threads.
     */
    @SuppressWarnings("deprecation") // ssl(boolean): the JVM's default SSLContext, like the connector under test
    public synchronized UnifiedJedis admin() {
        Backend b = ensureStarted();
        if (admin == null) {
            ConnectionPoolConfig pool = new ConnectionPoolConfig();
            pool.setMaxTotal(8);
            pool.setTestOnBorrow(true);
            pool.setTestWhileIdle(false);
            pool.setTimeBetweenEvictionRuns(Duration.ofMillis(-1));
            pool.setJmxEnabled(false);
            DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
                    .clientName(ADMIN_CLIENT_NAME).timeoutMillis(5000).database(b.database).ssl(b.tls);
            b.user.ifPresent(config::user);
            b.password.ifPresent(config::password);
            admin = RedisClient.builder().hostAndPort(b.host, b.port).clientConfig(config.build()).poolConfig(pool)
                    .build();
        }
        return admin;
    }

    /** {@code FLUSHALL}. */
    public void flushAll() {
        admin().flushAll();
    }

    /** {@code CONFIG RESETSTAT}: command counts start again at zero. */
    public void resetStats() {
        admin().executeCommand(new CommandArguments(Protocol.Command.CONFIG).add("RESETSTAT"));
    }

    /**
     * How often {@code command} ran since the last {@link #resetStats()} (or restart), from {@code INFO
     * commandstats}; subcommands as Redis names them, e.g. {@code script|load}.
     */
    public long commandCount(String command) {
        return RedisStats.commandCount(admin().info("commandstats"), command);
    }

    /** How many connections named {@code clientName} the server has now ({@code CLIENT LIST}). */
    public long clientCount(String clientName) {
        return RedisStats.clientCount(RedisStats.clientList(admin()), clientName);
    }

    // ----------------------------------------------------------------------------------------------- chaos

    /** Whether this fixture started the server and can therefore stop, kill, pause and restart it. */
    public boolean controllable() {
        return ensureStarted().process != null;
    }

    /** Skips the calling test unless {@link #controllable()}. */
    public void assumeControllable() {
        Backend b = ensureStarted();
        Assumptions.assumeTrue(b.process != null, () -> "this test stops, kills or pauses Redis, which the fixture "
                + "cannot do to " + b.description + "; run it with a redis-server binary on the PATH and without "
                + URI_VARIABLE);
    }

    /** {@code SHUTDOWN NOSAVE}; clients see the connection closed. */
    public void stop() {
        assumeControllable();
        backend.process.stop();
    }

    /** {@code kill -9}. */
    public void kill() {
        assumeControllable();
        backend.process.kill();
    }

    /** Starts the server again on the same port after {@link #stop()} or {@link #kill()}. */
    public void start() {
        assumeControllable();
        backend.process.restart();
    }

    /** SIGSTOP: Redis hangs (timeouts, not refused connections) until {@link #resume()}. */
    public void pause() {
        assumeControllable();
        backend.process.pause();
    }

    /** SIGCONT. */
    public void resume() {
        assumeControllable();
        backend.process.resume();
    }

    @Override
    public String toString() {
        return "RedisServer[" + (backend == null ? "not started" : backend.description) + "]";
    }

    // ----------------------------------------------------------------------------------------------- internals

    private synchronized Backend ensureStarted() {
        if (backend == null) {
            backend = resolve();
        }
        return backend;
    }

    private synchronized void shutdown() {
        if (admin != null) {
            admin.close();
            admin = null;
        }
        if (backend != null && backend.process != null) {
            backend.process.close();
        }
        backend = null;
    }

    private Backend resolve() {
        if (!args.isEmpty()) {
            // Only a process the fixture starts can take extra options, wherever plain tests get their Redis.
            Assumptions.assumeTrue(RedisProcess.binaryAvailable(), () -> "this test needs a redis-server started "
                    + "with " + masked(args) + ", which needs the " + RedisProcess.BINARY + " binary on the PATH: "
                    + RedisProcess.HOW_TO_GET_ONE);
            return Backend.process(RedisProcess.start(args));
        }
        String external = System.getenv(URI_VARIABLE);
        if (external != null && !external.isBlank()) {
            return Backend.external(external.trim());
        }
        if (RedisProcess.binaryAvailable()) {
            return Backend.process(RedisProcess.start(args));
        }
        // The container is a Redis: standing in for an absent valkey-server it would pass Redis off as Valkey.
        Assumptions.assumeTrue(ServerFamily.chosen() == ServerFamily.REDIS, () -> ServerFamily.VARIABLE + "="
                + ServerFamily.chosen().name().toLowerCase(java.util.Locale.ROOT) + " and no " + RedisProcess.BINARY
                + " binary on the PATH: " + RedisProcess.HOW_TO_GET_ONE);
        if (ContainerSupport.present() && ContainerRedisHolder.dockerAvailable()) {
            return ContainerRedisHolder.backend();
        }
        throw new IllegalStateException("No Redis for tests: " + RedisProcess.HOW_TO_GET_ONE);
    }

    /** The arguments with the value after {@code --requirepass} hidden. */
    private static List<String> masked(List<String> args) {
        List<String> shown = new java.util.ArrayList<>(args);
        for (int i = 0; i + 1 < shown.size(); i++) {
            if (shown.get(i).equalsIgnoreCase("--requirepass")) {
                shown.set(i + 1, "****");
            }
        }
        return shown;
    }

    /** Where the server is and, when the fixture started it, the process. */
    static final class Backend {
        final String host;
        final int port;
        final Optional<String> user;
        final Optional<String> password;
        final int database;
        final boolean tls;
        final RedisProcess process;
        final String description;

        Backend(String host, int port, Optional<String> user, Optional<String> password, int database, boolean tls,
                RedisProcess process, String description) {
            this.host = host;
            this.port = port;
            this.user = user;
            this.password = password;
            this.database = database;
            this.tls = tls;
            this.process = process;
            this.description = description;
        }

        static Backend process(RedisProcess process) {
            return new Backend(process.host(), process.port(), Optional.empty(), process.password(), 0, false,
                    process, process.toString());
        }

        static Backend external(String text) {
            URI uri = URI.create(text);
            Optional<String> user = Optional.empty();
            Optional<String> password = Optional.empty();
            if (uri.getRawUserInfo() != null) {
                String info = uri.getUserInfo();
                int colon = info.indexOf(':');
                if (colon < 0) {
                    password = Optional.of(info);
                } else {
                    user = Optional.of(info.substring(0, colon)).filter(u -> !u.isEmpty());
                    password = Optional.of(info.substring(colon + 1));
                }
            }
            String path = uri.getPath() == null ? "" : uri.getPath().replace("/", "");
            int database = path.isEmpty() ? 0 : Integer.parseInt(path);
            return new Backend(uri.getHost(), uri.getPort() < 0 ? 6379 : uri.getPort(), user, password, database,
                    "rediss".equalsIgnoreCase(uri.getScheme()), null,
                    "the Redis at " + uri.getHost() + ":" + uri.getPort() + " from " + URI_VARIABLE);
        }
    }

    /** Testcontainers is optional on the test class path: only touch it once its classes are known to be there. */
    static final class ContainerSupport {
        static boolean present() {
            try {
                Class.forName("org.testcontainers.DockerClientFactory", false, RedisServer.class.getClassLoader());
                return true;
            } catch (ClassNotFoundException | LinkageError e) {
                return false;
            }
        }
    }

    /** Keeps the class that links against Testcontainers unloaded unless it is needed. */
    static final class ContainerRedisHolder {
        static boolean dockerAvailable() {
            return ContainerRedis.dockerAvailable();
        }

        static Backend backend() {
            ContainerRedis.Address address = ContainerRedis.start();
            return new Backend(address.host(), address.port(), Optional.empty(), Optional.empty(), 0, false, null,
                    "the shared Testcontainers redis:7 at " + address.host() + ":" + address.port());
        }
    }
}
