package dev.sluice.test;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * One {@code redis-server} (or {@code redis-server --sentinel}) process on a loopback port, for tests that need to
 * stop, kill, pause or restart Redis, or extra servers (replicas, ACL, TLS, sentinels, cluster nodes). With
 * {@code SLUICE_TEST_SERVER=valkey} ({@link ServerFamily}) the process is a {@code valkey-server} with the same
 * options.
 *
 * <p>Every process runs with {@code --bind 127.0.0.1 --save "" --appendonly no} in its own directory under
 * {@code target/redis-fixture/} (or the temp directory), logging to {@code redis.log} there. {@link #restart()}
 * reuses the same port and arguments, so pooled clients reconnect by themselves.
 *
 * <p>No {@code redis-server} outlives the JVM that started it. A normal exit kills the processes still running from a
 * shutdown hook. A JVM killed outright ({@code kill -9}, or PIT ending a minion that ran too long) runs no hook, so
 * each process also has a guard: a {@code sh} whose standard input is a pipe from this JVM. The kernel closes the
 * pipe when the JVM dies, however it dies; the guard then reads end-of-file and sends {@code SIGKILL} to the
 * server, which ends it even when it is paused ({@code SIGSTOP}). The guard is disarmed (killed itself) as soon as
 * its server is stopped, so it never signals a process id that may have been reused.
 *
 * <p>Starting needs the server binary on the {@code PATH}; without it the calling test is skipped
 * (a JUnit assumption with a message saying how to get one). Start processes from {@code @BeforeEach} (once, kept
 * in a static field) rather than {@code @BeforeAll}: Surefire silently drops a class whose {@code @BeforeAll} is
 * skipped.
 *
 * <p>Thread-safe enough for tests: lifecycle methods are synchronized.
 */
public final class RedisProcess implements AutoCloseable {

    /**
     * The command: {@code redis-server} or {@code valkey-server} as {@link ServerFamily#chosen()} says, overridable
     * with {@code -Dsluice.test.redis-server=/path/to/server}.
     */
    static final String BINARY = System.getProperty("sluice.test.redis-server", ServerFamily.chosen().binary());
    static final String HOW_TO_GET_ONE = ServerFamily.chosen().howToGetOne();

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(15);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);
    private static final Set<RedisProcess> RUNNING = ConcurrentHashMap.newKeySet();
    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    /**
     * Waits for end-of-file on standard input (only this JVM holds the pipe's write end: Java closes inherited
     * descriptors in the processes it starts), then kills the server whose pid is {@code $1}. Shell built-ins only,
     * so killing the guard leaves nothing behind.
     */
    private static final String GUARD_SCRIPT = "while read -r line; do :; done; kill -KILL \"$1\" 2>/dev/null";
    private static volatile Boolean binaryAvailable;

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(RedisProcess::destroyNow),
                "sluice-redis-fixture-reaper"));
    }

    private final int port;
    private final Path dir;
    private final Path logFile;
    private final List<String> command;
    private final Optional<String> password;
    private Process process;
    private volatile Process guard;
    private boolean paused;

    private RedisProcess(int port, Path dir, List<String> command, Optional<String> password) {
        this.port = port;
        this.dir = dir;
        this.logFile = dir.resolve("redis.log");
        this.command = List.copyOf(command);
        this.password = password;
    }

    /**
     * Starts a {@code redis-server} on a free port with the fixture's base options followed by {@code args}
     * (command-line options such as {@code "--requirepass", "secret"}; later options win).
     */
    public static RedisProcess start(List<String> args) {
        return startOnFreePort(false, args);
    }

    /** As {@link #start(List)}. */
    public static RedisProcess start(String... args) {
        return start(List.of(args));
    }

    /** Starts a {@code redis-server} on {@code port}, which must be free. */
    public static RedisProcess start(int port, List<String> args) {
        assumeBinary();
        Path dir = newDirectory(port);
        RedisProcess redis = new RedisProcess(port, dir, serverCommand(port, args), passwordIn(args));
        redis.launch();
        return redis;
    }

    /**
     * Starts a Sentinel on a free port with {@code configLines} in its (rewritable) config file, e.g.
     * {@code "sentinel monitor mymaster 127.0.0.1 6380 1"}, {@code "sentinel auth-pass mymaster secret"}.
     */
    public static RedisProcess startSentinel(List<String> configLines) {
        return startOnFreePort(true, configLines);
    }

    /** Starts a Sentinel on {@code port}, which must be free (to bring up a sentinel a client already expects). */
    public static RedisProcess startSentinel(int port, List<String> configLines) {
        assumeBinary();
        Path dir = newDirectory(port);
        RedisProcess redis = new RedisProcess(port, dir, sentinelCommand(port, dir, configLines),
                passwordIn(configLines));
        redis.launch();
        return redis;
    }

    /** A TCP port on 127.0.0.1 that was free a moment ago. */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }

    /** Whether the {@code redis-server} binary can be run here. */
    public static boolean binaryAvailable() {
        Boolean available = binaryAvailable;
        if (available == null) {
            try {
                Process probe = new ProcessBuilder(BINARY, "--version").redirectErrorStream(true).start();
                probe.getInputStream().readAllBytes();
                available = probe.waitFor(10, TimeUnit.SECONDS) && probe.exitValue() == 0;
            } catch (IOException e) {
                available = false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                available = false;
            }
            binaryAvailable = available;
        }
        return available;
    }

    /** Skips the calling test when no {@code redis-server} binary is available. */
    public static void assumeBinary() {
        Assumptions.assumeTrue(binaryAvailable(), () -> "this test starts its own Redis processes and needs the "
                + BINARY + " binary on the PATH: " + HOW_TO_GET_ONE);
    }

    public String host() {
        return "127.0.0.1";
    }

    public int port() {
        return port;
    }

    /** {@code host:port}. */
    public String address() {
        return host() + ":" + port;
    }

    /** {@code redis://127.0.0.1:<port>} (no credentials). */
    public String uri() {
        return "redis://" + address();
    }

    /** The password given with {@code --requirepass}, if any. */
    public Optional<String> password() {
        return password;
    }

    /** The process's working directory (data, {@code nodes.conf}, {@code sentinel.conf}, the log). */
    public Path dir() {
        return dir;
    }

    /** Where the server logs. */
    public Path logFile() {
        return logFile;
    }

    /** The last {@code lines} lines of the log, for failure messages. */
    public String logTail(int lines) {
        try {
            List<String> all = Files.readAllLines(logFile, StandardCharsets.UTF_8);
            return String.join(System.lineSeparator(), all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(no log at " + logFile + ")";
        }
    }

    /** Whether the process is alive (it may be paused). */
    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** The OS process id, while running. */
    public synchronized long pid() {
        if (!isRunning()) {
            throw new IllegalStateException(BINARY + " on port " + port + " is not running");
        }
        return process.pid();
    }

    /** A clean stop: {@code SHUTDOWN NOSAVE}, falling back to SIGTERM; waits until the process has exited. */
    public synchronized void stop() {
        if (!isRunning()) {
            return;
        }
        resume();
        try {
            String refusal = send(password, List.of("SHUTDOWN", "NOSAVE"));
            if (refusal != null) {
                process.destroy();
            }
        } catch (IOException e) {
            process.destroy();
        }
        awaitExit(process);
        disarmGuard();
        RUNNING.remove(this);
    }

    /** {@code kill -9}: no goodbye to the clients, their sockets just die. */
    public synchronized void kill() {
        if (!isRunning()) {
            return;
        }
        process.destroyForcibly();
        awaitExit(process);
        disarmGuard();
        paused = false;
        RUNNING.remove(this);
    }

    /** Starts the process again on the same port with the same arguments (after {@link #stop()} or {@link #kill()}). */
    public synchronized void restart() {
        if (isRunning()) {
            throw new IllegalStateException(BINARY + " on port " + port + " is still running");
        }
        launch();
    }

    /**
     * SIGSTOP: the process keeps its socket open and the kernel still accepts connections, but nothing answers;
     * clients see timeouts, not refusals.
     */
    public synchronized void pause() {
        if (isRunning() && !paused) {
            signal("STOP");
            paused = true;
        }
    }

    /** SIGCONT after {@link #pause()}. */
    public synchronized void resume() {
        if (isRunning() && paused) {
            signal("CONT");
            paused = false;
        }
    }

    /** Kills the process (if running); its directory and log are kept for inspection. */
    @Override
    public synchronized void close() {
        kill();
    }

    @Override
    public String toString() {
        return "RedisProcess[" + BINARY + " " + address() + ", log=" + logFile + "]";
    }

    /** Sends one command over a fresh connection (after {@code AUTH} when a password is given) and returns the reply line. */
    static String send(Optional<String> password, String host, int port, List<String> command) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 1000);
            socket.setSoTimeout(2000);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            if (password.isPresent()) {
                out.write(resp(List.of("AUTH", password.get())));
                readLine(in);
            }
            out.write(resp(command));
            out.flush();
            return readLine(in);
        }
    }

    private String send(Optional<String> password, List<String> command) throws IOException {
        return send(password, host(), port, command);
    }

    private static RedisProcess startOnFreePort(boolean sentinel, List<String> argsOrConfig) {
        assumeBinary();
        IllegalStateException last = null;
        // A port found free can be taken by another test JVM before redis-server binds it: try a few.
        for (int attempt = 0; attempt < 5; attempt++) {
            int port = freePort();
            Path dir = newDirectory(port);
            List<String> command = sentinel ? sentinelCommand(port, dir, argsOrConfig)
                    : serverCommand(port, argsOrConfig);
            RedisProcess redis = new RedisProcess(port, dir, command, passwordIn(argsOrConfig));
            try {
                redis.launch();
                return redis;
            } catch (IllegalStateException e) {
                last = e;
                if (!redis.logTail(50).contains("Address already in use")) {
                    throw e;
                }
            }
        }
        throw last;
    }

    private static List<String> serverCommand(int port, List<String> args) {
        List<String> command = new ArrayList<>(List.of(BINARY, "--port", String.valueOf(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"));
        command.addAll(args);
        return command;
    }

    private static List<String> sentinelCommand(int port, Path dir, List<String> configLines) {
        Path config = dir.resolve("sentinel.conf");
        try {
            Files.write(config, configLines, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return List.of(BINARY, config.toString(), "--sentinel", "--port", String.valueOf(port),
                "--bind", "127.0.0.1");
    }

    /** The password of {@code --requirepass <pw>} arguments or a {@code requirepass <pw>} config line. */
    private static Optional<String> passwordIn(List<String> argsOrConfig) {
        int i = argsOrConfig.indexOf("--requirepass");
        if (i >= 0 && i + 1 < argsOrConfig.size()) {
            return Optional.of(argsOrConfig.get(i + 1));
        }
        return argsOrConfig.stream().filter(line -> line.startsWith("requirepass "))
                .map(line -> line.substring("requirepass ".length()).trim()).findFirst();
    }

    private static Path newDirectory(int port) {
        Path target = Path.of("target");
        Path base = Files.isDirectory(target) ? target.resolve("redis-fixture")
                : Path.of(System.getProperty("java.io.tmpdir"), "sluice-redis-fixture");
        try {
            Files.createDirectories(base);
            return Files.createDirectories(base.resolve(ProcessHandle.current().pid() + "-"
                    + SEQUENCE.incrementAndGet() + "-" + port)).toAbsolutePath();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void launch() {
        List<String> full = new ArrayList<>(command);
        if (!full.contains("--dir")) {
            full.addAll(List.of("--dir", dir.toString()));
        }
        try {
            process = new ProcessBuilder(full)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + BINARY + ": " + HOW_TO_GET_ONE, e);
        }
        try {
            guard = new ProcessBuilder("sh", "-c", GUARD_SCRIPT, "sluice-redis-guard", String.valueOf(process.pid()))
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
        } catch (IOException e) {
            process.destroyForcibly();
            throw new IllegalStateException("cannot start the guard of redis-server on port " + port
                    + " (it needs sh)", e);
        }
        paused = false;
        RUNNING.add(this);
        awaitReady();
    }

    /** Polls until the server answers anything (even -NOAUTH) on its port, the process dies, or time runs out. */
    private void awaitReady() {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (true) {
            if (!process.isAlive()) {
                disarmGuard();
                RUNNING.remove(this);
                throw new IllegalStateException(BINARY + " on port " + port + " exited with "
                        + process.exitValue() + "; log " + logFile + ":" + System.lineSeparator() + logTail(20));
            }
            try {
                String reply = send(Optional.empty(), List.of("PING"));
                if (reply != null && !reply.startsWith("-LOADING")) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            if (System.nanoTime() > deadline) {
                destroyNow();
                throw new IllegalStateException(BINARY + " on port " + port + " did not answer within "
                        + READY_TIMEOUT + "; log " + logFile + ":" + System.lineSeparator() + logTail(20));
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    private void signal(String name) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, String.valueOf(process.pid()))
                    .redirectErrorStream(true).start();
            kill.getInputStream().readAllBytes();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private void awaitExit(Process p) {
        try {
            if (!p.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly().waitFor();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
        }
    }

    /** Kills the server and its guard, without waiting (the shutdown hook; a server that never became ready). */
    private void destroyNow() {
        disarmGuard();
        Process p = process;
        if (p != null) {
            p.destroyForcibly();
        }
    }

    /** The server is gone (or about to be killed here): its guard must not signal its pid later. */
    private void disarmGuard() {
        Process g = guard;
        if (g != null) {
            g.destroyForcibly();
            guard = null;
        }
    }

    private static byte[] resp(List<String> args) {
        StringBuilder text = new StringBuilder("*").append(args.size()).append("\r\n");
        for (String arg : args) {
            byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
            text.append('$').append(bytes.length).append("\r\n").append(arg).append("\r\n");
        }
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** One RESP line, or {@code null} when the server closed the connection (as SHUTDOWN does). */
    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\n') {
                return line.toString().stripTrailing();
            }
            line.append((char) c);
        }
        return line.length() == 0 ? null : line.toString();
    }
}
