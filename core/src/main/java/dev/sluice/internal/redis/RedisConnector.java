package dev.sluice.internal.redis;

import dev.sluice.SluiceConfigException;
import dev.sluice.internal.config.ConfigProblems;
import dev.sluice.internal.config.RedisAddress;
import dev.sluice.internal.config.RedisSettings;
import dev.sluice.internal.config.RedisSettings.Mode;

import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.providers.ClusterConnectionProvider;

import javax.net.ssl.SSLParameters;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The one pooled Redis client of an application: standalone ({@code sluice.redis.uri}), Sentinel
 * ({@code sluice.redis.sentinels} + {@code sluice.redis.master-name}) or Cluster ({@code sluice.redis.cluster-nodes}),
 * always seen as a {@link UnifiedJedis}.
 *
 * <p>{@link #connect} checks the credentials (and the TLS certificate) at once: a Redis that rejects them fails the
 * deployment with a {@link SluiceConfigException}. A Redis that cannot be reached does not: it may simply be down while the
 * application deploys, so one WARN is logged and calls fail (and are handled by the caller's failure mode) until it
 * answers. In Sentinel and Cluster mode the client itself cannot be built without reaching a sentinel or a seed
 * node; it is then built by the first {@link #client()} call that can reach one.
 *
 * <p>Pool: {@code maxTotal}, {@code maxIdle}, {@code minIdle} and {@code maxWait} come from
 * {@code sluice.redis.pool.*}. Connections are not tested on borrow, because a {@code PING} before every command
 * would double the round trips of every rate-limit check; instead the evictor pings idle connections every 30
 * seconds and closes those idle for over a minute, and a connection that fails during a command is discarded by
 * the pool. After a Redis restart each stale idle connection therefore fails one command and is replaced; calls
 * are not retried here because a script whose reply was lost may already have run. JMX registration of the pool
 * is off so that a missed {@link #close()} cannot pin the application's class loader in the platform MBean server.
 *
 * <p>{@code sluice.redis.timeout} is both the connect and the socket (command) timeout. Connections name
 * themselves {@code sluice} ({@code CLIENT SETNAME}) so that they stand out in {@code CLIENT LIST}. With
 * {@code sluice.redis.tls} (or {@code rediss://}) every connection, to sentinels, masters and cluster nodes alike,
 * uses TLS with the JVM's default {@code SSLContext} (its default truststore), and each server's certificate must
 * match the host name it is reached by. Sentinels are asked with the same credentials and TLS setting as the
 * master, unless a sentinel has no password configured, in which case they are asked without credentials (sending
 * a password to a server that has none is an error in Redis).
 *
 * <p>The password never appears in {@link #toString()}, in a log record or in an exception message written here.
 *
 * <p>Thread-safe. {@link #close()} closes the pool, its sockets and its threads (Sentinel listeners, the pool
 * evictor); it must be called when the application stops.
 */
public final class RedisConnector implements AutoCloseable {

    /** The name every connection gives itself with {@code CLIENT SETNAME}. */
    public static final String CLIENT_NAME = "sluice";

    private static final System.Logger LOG = System.getLogger(RedisConnector.class.getName());
    private static final Duration EVICTION_INTERVAL = Duration.ofSeconds(30);
    private static final Duration IDLE_BEFORE_EVICTION = Duration.ofMinutes(1);
    private static final Duration REBUILD_INTERVAL = Duration.ofSeconds(1);

    private final RedisSettings settings;
    private final Mode mode;
    private final String target;
    /**
     * Guards building and closing the client. Not a monitor: building one in Sentinel or Cluster mode talks to the
     * nodes, and on JDK 21 to 23 virtual threads waiting for a monitor meanwhile would pin their carriers.
     */
    private final ReentrantLock lock = new ReentrantLock();
    private volatile UnifiedJedis client;
    private boolean closed;
    private JedisConnectionException lastFailure;
    private long lastFailureNanos;

    private RedisConnector(RedisSettings settings) {
        this.settings = settings;
        this.mode = settings.mode();
        this.target = describeTarget(settings);
    }

    /**
     * Builds the client for {@code settings} and checks that Redis accepts its credentials.
     *
     * @throws SluiceConfigException    when Redis rejects the credentials ({@code WRONGPASS}, {@code NOAUTH},
     *                                  {@code NOPERM}), when a password is given to a Redis that has none, when
     *                                  the TLS handshake fails (certificate not trusted or not matching the host),
     *                                  or when the sentinels do not monitor {@code sluice.redis.master-name}
     * @throws IllegalArgumentException when {@code settings} configure no Redis at all (in-process mode)
     */
    public static RedisConnector connect(RedisSettings settings) {
        if (settings.mode() == Mode.IN_PROCESS) {
            throw new IllegalArgumentException("no Redis is configured; the in-process store needs no connector");
        }
        RedisConnector connector = new RedisConnector(settings);
        try {
            connector.client().ping();
        } catch (JedisException e) {
            Optional<SluiceConfigException> rejected = RedisFailures.asConfigProblem(e, settings, connector.target);
            if (rejected.isPresent()) {
                connector.close();
                throw rejected.get();
            }
            LOG.log(System.Logger.Level.WARNING, "Sluice cannot reach Redis at {0} ({1}); the application starts "
                    + "anyway and Redis calls fail until it answers", connector.target,
                    RedisFailures.describe(e, settings));
        } catch (RuntimeException e) {
            connector.close();
            throw e;
        }
        return connector;
    }

    /**
     * The client. Call it for each operation rather than keeping the result: in Sentinel and Cluster mode it is
     * only built once a sentinel or seed node has answered.
     *
     * @throws JedisConnectionException when the client still cannot be built because nothing answers
     * @throws SluiceConfigException    when the sentinels answer but do not know the master name, or reject the
     *                                  credentials
     * @throws IllegalStateException    after {@link #close()}
     */
    public UnifiedJedis client() {
        UnifiedJedis current = client;
        if (current != null) {
            return current;
        }
        lock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("the Redis connector to " + target + " is closed");
            }
            if (client == null) {
                client = buildOrExplain();
            }
            return client;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Builds the client, turning every failure into either a configuration error or a
     * {@link JedisConnectionException} so that callers need to handle only one kind of "Redis is down". While
     * nothing answers, a new attempt is made at most once per {@link #REBUILD_INTERVAL}: a flood of requests must
     * not each wait for every sentinel's connect timeout in turn.
     */
    private UnifiedJedis buildOrExplain() {
        long now = System.nanoTime();
        if (lastFailure != null && now - lastFailureNanos < REBUILD_INTERVAL.toNanos()) {
            throw new JedisConnectionException(lastFailure.getMessage(), lastFailure);
        }
        try {
            UnifiedJedis built = build();
            lastFailure = null;
            return built;
        } catch (SluiceConfigException e) {
            throw e;
        } catch (JedisException e) {
            Optional<SluiceConfigException> problem = RedisFailures.asConfigProblem(e, settings, target);
            if (problem.isPresent()) {
                throw problem.get();
            }
            lastFailure = new JedisConnectionException("Redis at " + target + " cannot be reached: "
                    + RedisFailures.describe(e, settings), e);
            lastFailureNanos = now;
            throw lastFailure;
        }
    }

    /**
     * Drops the pool's idle connections (standalone and Cluster; Sentinel's pool is not reachable through
     * Jedis's API). After Redis restarts every idle connection is dead, and without this each would fail
     * one caller before the pool replaced it.
     */
    public void discardIdleConnections() {
        UnifiedJedis current = client;
        try {
            if (current instanceof redis.clients.jedis.RedisClient standalone) {
                standalone.getPool().clear();
            } else if (current instanceof RedisClusterClient cluster) {
                cluster.getClusterNodes().values().forEach(redis.clients.jedis.util.Pool::clear);
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "Sluice could not clear idle Redis connections", e);
        }
    }

    /** Standalone, Sentinel or Cluster. */
    public Mode mode() {
        return mode;
    }

    /**
     * Whether Redis answers {@code PING} now. Bounded by the pool's max wait plus the connect and socket timeouts;
     * never throws.
     */
    public boolean ping() {
        try {
            return "PONG".equalsIgnoreCase(client().ping());
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Closes the pool with its sockets and threads. Idempotent; {@link #client()} fails afterwards. */
    @Override
    public void close() {
        UnifiedJedis toClose;
        lock.lock();
        try {
            closed = true;
            toClose = client;
            client = null;
        } finally {
            lock.unlock();
        }
        if (toClose != null) {
            List<Thread> listeners = SentinelListeners.of(toClose);
            toClose.close();
            SentinelListeners.stopStragglers(listeners);
        }
    }

    @Override
    public String toString() {
        return "RedisConnector[mode=" + mode + ", target=" + target + ", user=" + settings.user().orElse("-")
                + ", password=" + (settings.password().isPresent() ? "****" : "-") + ", database="
                + settings.database() + ", tls=" + settings.tls() + ", timeout=" + settings.timeout() + "]";
    }

    private UnifiedJedis build() {
        ConnectionPoolConfig pool = poolConfig(settings.pool());
        switch (mode) {
            case STANDALONE:
                return RedisClient.builder()
                        .hostAndPort(hostAndPort(settings.address().orElseThrow()))
                        .clientConfig(clientConfig(true, true))
                        .poolConfig(pool)
                        .build();
            case SENTINEL:
                return RedisSentinelClient.builder()
                        .masterName(settings.masterName().orElseThrow(() -> ConfigProblems.absent(
                                "sluice.redis.master-name", " but sluice.redis.sentinels is set",
                                "the name of the master the sentinels monitor")))
                        .sentinels(hostsAndPorts(settings.sentinels()))
                        .clientConfig(clientConfig(true, true))
                        .sentinelClientConfig(sentinelConfig())
                        .poolConfig(pool)
                        .build();
            case CLUSTER:
                return cluster(pool);
            default:
                throw new IllegalStateException("no Redis client in mode " + mode);
        }
    }

    /**
     * Cluster nodes only have database 0: SELECT is refused there. Commands go through
     * {@link AtMostOnceClusterExecutor}, so that no script is sent twice and a call takes at most about one
     * {@code sluice.redis.timeout}.
     */
    private RedisClusterClient cluster(ConnectionPoolConfig pool) {
        Set<HostAndPort> nodes = hostsAndPorts(settings.clusterNodes());
        JedisClientConfig config = clientConfig(true, false);
        ClusterConnectionProvider provider = new ClusterConnectionProvider(nodes, config, pool);
        return RedisClusterClient.builder()
                .nodes(nodes)
                .clientConfig(config)
                .connectionProvider(provider)
                .commandExecutor(new AtMostOnceClusterExecutor(provider, settings.timeout()))
                .build();
    }

    /**
     * Sentinels usually protect themselves with their own password or none; the contract has a single set of
     * credentials. Ask the sentinels with them unless the first sentinel that answers accepts commands without.
     * With TLS the first sentinel that answers is also asked to complete a handshake: Jedis reports a sentinel whose
     * certificate is not trusted as "all sentinels down", which would hide a configuration error behind an outage.
     */
    private JedisClientConfig sentinelConfig() {
        JedisClientConfig withCredentials = clientConfig(false, false);
        if (settings.password().isEmpty() && !settings.tls()) {
            return withCredentials;
        }
        JedisClientConfig anonymous = clientConfig(false, false, false);
        for (HostAndPort sentinel : hostsAndPorts(settings.sentinels())) {
            try (Jedis jedis = new Jedis(sentinel, withCredentials)) {
                jedis.ping();
                return withCredentials;
            } catch (JedisConnectionException unreachable) {
                Optional<SluiceConfigException> badTls = RedisFailures.asConfigProblem(unreachable, settings,
                        "sentinel " + sentinel);
                if (badTls.isPresent()) {
                    throw badTls.get();
                }
                continue;
            } catch (JedisException rejected) {
                if (settings.password().isEmpty()) {
                    return withCredentials; // nothing to leave out; the client reports what the sentinel refuses
                }
                try (Jedis jedis = new Jedis(sentinel, anonymous)) {
                    jedis.ping();
                    return anonymous;
                } catch (JedisConnectionException unreachable) {
                    continue;
                } catch (JedisException alsoRejected) {
                    throw RedisFailures.asConfigProblem(rejected, settings, "sentinel " + sentinel)
                            .orElseThrow(() -> rejected);
                }
            }
        }
        return withCredentials;
    }

    private JedisClientConfig clientConfig(boolean master, boolean withDatabase) {
        return clientConfig(master, withDatabase, true);
    }

    /**
     * Deprecated {@code ssl(true)} on purpose: its replacement, {@code SslOptions}, builds a new
     * {@code SSLContext} from the truststore files for every connection, ignoring a default context the
     * application server installed with {@code SSLContext.setDefault} and re-reading the truststore on each
     * connect. {@code ssl(true)} uses the JVM's default {@code SSLSocketFactory}.
     */
    @SuppressWarnings("deprecation")
    private JedisClientConfig clientConfig(boolean master, boolean withDatabase, boolean withCredentials) {
        int timeout = millis(settings.timeout());
        DefaultJedisClientConfig.Builder builder = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(timeout)
                .socketTimeoutMillis(timeout)
                .clientName(CLIENT_NAME)
                // Jedis would send CLIENT SETINFO on every new connection: a command the minimal ACL user of the
                // operations guide does not grant, so Redis 7.2+ and Valkey would log a denial per connection.
                .clientSetInfoConfig(ClientSetInfoConfig.DISABLED);
        if (withCredentials) {
            settings.user().ifPresent(builder::user);
            settings.password().ifPresent(builder::password);
        }
        if (master && withDatabase) {
            builder.database(settings.database());
        }
        if (settings.tls()) {
            // Jedis 7 checks the host name by default, older versions did not; saying so here keeps the check if a
            // default changes, since without it any certificate the truststore trusts would pass for any host.
            SSLParameters parameters = new SSLParameters();
            parameters.setEndpointIdentificationAlgorithm("HTTPS");
            builder.ssl(true).sslParameters(parameters);
        }
        return builder.build();
    }

    static ConnectionPoolConfig poolConfig(RedisSettings.Pool pool) {
        ConnectionPoolConfig config = new ConnectionPoolConfig();
        config.setMaxTotal(pool.maxTotal());
        config.setMaxIdle(pool.maxIdle());
        config.setMinIdle(pool.minIdle());
        config.setMaxWait(pool.maxWait());
        config.setBlockWhenExhausted(true);
        config.setTestOnCreate(false);
        config.setTestOnBorrow(false);
        config.setTestOnReturn(false);
        config.setTestWhileIdle(true);
        config.setTimeBetweenEvictionRuns(EVICTION_INTERVAL);
        config.setMinEvictableIdleDuration(IDLE_BEFORE_EVICTION);
        config.setNumTestsPerEvictionRun(-1);
        config.setJmxEnabled(false);
        return config;
    }

    private static HostAndPort hostAndPort(RedisAddress address) {
        return new HostAndPort(address.host(), address.port());
    }

    private static Set<HostAndPort> hostsAndPorts(List<RedisAddress> addresses) {
        Set<HostAndPort> all = new LinkedHashSet<>();
        addresses.forEach(address -> all.add(hostAndPort(address)));
        return all;
    }

    private static int millis(Duration duration) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, duration.toMillis()));
    }

    private static String describeTarget(RedisSettings settings) {
        switch (settings.mode()) {
            case STANDALONE:
                return settings.uri().orElse("-");
            case SENTINEL:
                return "master " + settings.masterName().orElse("?") + " via sentinels " + settings.sentinels();
            case CLUSTER:
                return "cluster " + settings.clusterNodes();
            default:
                return "-";
        }
    }
}
