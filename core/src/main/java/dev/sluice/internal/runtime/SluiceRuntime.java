package dev.sluice.internal.runtime;

import dev.sluice.internal.config.RedisSettings;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.limit.BucketResets;
import dev.sluice.internal.limit.DenyCache;
import dev.sluice.internal.limit.InProcessRateLimitStore;
import dev.sluice.internal.limit.RateLimitEngine;
import dev.sluice.internal.limit.RateLimitStore;
import dev.sluice.internal.limit.RedisRateLimitStore;
import dev.sluice.internal.metrics.MetricsBridges;
import dev.sluice.internal.metrics.SluiceMetrics;
import dev.sluice.internal.redis.CircuitBreaker;
import dev.sluice.internal.redis.RedisConnector;
import dev.sluice.internal.redis.ScriptExecutor;
import dev.sluice.internal.lock.LockService;
import dev.sluice.internal.lock.LockServices;
import dev.sluice.internal.lease.Watchdog;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Everything one application shares: its configuration, its single Redis connection pool (or the
 * in-process store) and the engines built on it. Obtained through {@link SluiceRuntimes} so that the
 * servlet filter, the JAX-RS filter and the CDI beans of one application share one pool; closed when the
 * last of them is undeployed.
 *
 * <p>Thread-safe.
 */
public final class SluiceRuntime implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger("dev.sluice");
    private static final AtomicBoolean WARNED_IN_PROCESS = new AtomicBoolean();

    private final SluiceConfig config;
    private final RedisConnector connector;
    private final ScriptExecutor scripts;
    private final RateLimitEngine rateLimits;
    private final BucketResets resets;
    private final SluiceMetrics metrics;
    private final CircuitBreaker breaker;
    private final ConfigReloads reloads;
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile LockService locks;
    private volatile Watchdog permitWatchdog;

    private SluiceRuntime(SluiceConfig config, RedisConnector connector, ScriptExecutor scripts, RateLimitStore store,
                          SluiceMetrics metrics) {
        this.config = config;
        this.connector = connector;
        this.scripts = scripts;
        this.metrics = metrics;
        this.breaker = new CircuitBreaker(CircuitBreaker.DEFAULT_THRESHOLD, CircuitBreaker.DEFAULT_COOL_DOWN,
                System::nanoTime, describe(config.redis()), metrics.redis());
        metrics.register(config);
        this.rateLimits = new RateLimitEngine(store, config.keyPrefix(), breaker,
                new DenyCache(config.denyCacheSize(), System::nanoTime), this::permitWatchdog, metrics.rateLimits());
        // First in, so closed last: whatever the others count while closing is still published until then.
        closeables.add(metrics);
        if (connector != null) {
            closeables.add(connector);
        }
        closeables.add(store);
        // Closed before the store: the unspent tokens of local budgets go back to their buckets.
        closeables.add(() -> rateLimits.returnLocalBudgets());
        this.resets = new BucketResets(rateLimits, connector, config.keyPrefix());
        closeables.add(resets);
        metrics.resetAction((policy, key) -> {
            long told = resets.reset(policy, key);
            return connector == null ? "the bucket is deleted in this JVM's store"
                    : "the bucket is deleted in Redis; " + told + " subscribed node(s) told to forget their refusal";
        });
        // Last in, so closed first: no refresh runs while the store and pool go away.
        this.reloads = new ConfigReloads(metrics.app(), rateLimits, metrics.reloads());
        closeables.add(reloads);
    }

    /**
     * Starts a runtime: connects to Redis as configured, loads the Lua scripts (validating operator
     * overrides), or falls back to the in-process store with one WARN.
     *
     * @throws dev.sluice.SluiceConfigException when a script override does not load or credentials are refused
     */
    public static SluiceRuntime start(SluiceConfig config) {
        return start(config, SluiceMetrics.DEFAULT_APP, null);
    }

    /**
     * Starts a runtime as {@link #start(SluiceConfig)} does, its metrics published in JMX under {@code app} and,
     * when {@code application} has Micrometer (and not MicroProfile Metrics), in Micrometer's global registry.
     * Logs one INFO line summarising the configuration (never a password).
     *
     * @param app         the application's id in metrics (made unique in this server if it is taken)
     * @param application the application's class loader, where metrics libraries are looked for; null for none
     */
    public static SluiceRuntime start(SluiceConfig config, String app, ClassLoader application) {
        if (config.redis().mode() == RedisSettings.Mode.IN_PROCESS) {
            if (WARNED_IN_PROCESS.compareAndSet(false, true)) {
                LOG.log(Level.WARNING, "Sluice: sluice.redis.uri is not set; rate limits, locks and semaphores "
                        + "use the in-process store and are local to this JVM");
            }
            return started(new SluiceRuntime(config, null, null, new InProcessRateLimitStore(),
                    SluiceMetrics.start(app, config.redis())), application);
        }
        RedisRateLimitStore.Scripts scripts = RedisRateLimitStore.Scripts.load(config.scripts());
        RedisConnector connector = RedisConnector.connect(config.redis());
        try {
            ScriptExecutor executor = ScriptExecutor.of(connector);
            executor.preload(scripts.all());
            return started(new SluiceRuntime(config, connector, executor,
                    new RedisRateLimitStore(executor, scripts, config.redis().mode(),
                            connector::discardIdleConnections,
                            config.redis().pipelining() ? RedisRateLimitStore.DEFAULT_SENDERS : 0,
                            RedisRateLimitStore.DEFAULT_BATCH),
                    SluiceMetrics.start(app, config.redis())), application);
        } catch (RuntimeException e) {
            connector.close();
            throw e;
        }
    }

    private static SluiceRuntime started(SluiceRuntime runtime, ClassLoader application) {
        if (application != null) {
            MetricsBridges.atStart(runtime.metrics, application);
        }
        LOG.log(Level.INFO, RuntimeSummary.of(runtime.config, runtime.metrics.app()));
        return runtime;
    }

    /** A runtime over a given store (tests, benchmarks). */
    public static SluiceRuntime of(SluiceConfig config, RateLimitStore store) {
        return new SluiceRuntime(config, null, null, store, SluiceMetrics.unpublished(config.redis()));
    }

    /** A runtime over a given store and Redis connector, which it closes (tests, benchmarks). */
    public static SluiceRuntime of(SluiceConfig config, RateLimitStore store, RedisConnector redis) {
        return new SluiceRuntime(config, redis, ScriptExecutor.of(redis), store, SluiceMetrics.unpublished(config.redis()));
    }

    /** The application's Redis connection pool; empty for the in-process store. */
    public Optional<RedisConnector> redis() {
        return Optional.ofNullable(connector);
    }

    /** Runs bundled or replaced Lua scripts with NOSCRIPT recovery; empty with the in-process store. */
    public Optional<ScriptExecutor> scripts() {
        return Optional.ofNullable(scripts);
    }

    /**
     * The application's one circuit breaker over its store: every caller (filters, JAX-RS, the programmatic
     * limiter, locks, semaphores) meets it, so a dead Redis is skipped by all of them at once.
     */
    public CircuitBreaker breaker() {
        return breaker;
    }

    private static String describe(RedisSettings redis) {
        return switch (redis.mode()) {
            case STANDALONE -> "Redis at " + redis.uri().orElse("?");
            case SENTINEL -> "Redis (Sentinel master " + redis.masterName().orElse("?") + ")";
            case CLUSTER -> "Redis Cluster " + redis.clusterNodes();
            case IN_PROCESS -> "the in-process store";
        };
    }

    public SluiceConfig config() {
        return config;
    }

    public RateLimitEngine rateLimits() {
        return rateLimits;
    }

    /** Gives a client its burst back on every node (JMX {@code reset(key)}, {@code RateLimiter.reset}). */
    public BucketResets resets() {
        return resets;
    }

    /**
     * The application's metrics and Redis status; the rate-limit engine's decisions are counted here through
     * {@link SluiceMetrics#rateLimits()}.
     */
    public SluiceMetrics metrics() {
        return metrics;
    }

    /**
     * The application's locks and semaphores, created on first use (so applications that only rate-limit
     * start no watchdog or subscriber) and closed with this runtime.
     */
    public LockService locks() {
        LockService l = locks;
        if (l == null) {
            synchronized (closeables) {
                l = locks;
                if (l == null) {
                    l = LockServices.create(config, redis(), metrics, breaker);
                    closeables.add(l);
                    locks = l;
                }
            }
        }
        return l;
    }

    /**
     * The application's live reconfiguration: the servlet filter and JAX-RS register here what they can
     * re-read ({@code sluice.config.refresh}, JMX {@code reload()}).
     */
    public ConfigReloads reloads() {
        return reloads;
    }

    /**
     * The watchdog that renews the permits of requests in flight under concurrency limits, created on first use
     * (from a request thread, so that it finds the server's managed scheduler) and closed with this runtime. Not
     * the locks' one, so that concurrency limits start no lock service.
     */
    private Watchdog permitWatchdog() {
        Watchdog w = permitWatchdog;
        if (w == null) {
            synchronized (closeables) {
                w = permitWatchdog;
                if (w == null) {
                    w = Watchdog.create(System::nanoTime);
                    closeables.add(w);
                    permitWatchdog = w;
                }
            }
        }
        return w;
    }

    /** Registers something closed with this runtime (in reverse order of registration). */
    public void onClose(AutoCloseable closeable) {
        synchronized (closeables) {
            closeables.add(closeable);
        }
    }

    public boolean isClosed() {
        return closed.get();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        List<AutoCloseable> toClose;
        synchronized (closeables) {
            toClose = new ArrayList<>(closeables);
        }
        for (int i = toClose.size() - 1; i >= 0; i--) {
            try {
                toClose.get(i).close();
            } catch (Exception e) {
                LOG.log(Level.WARNING, "Sluice: error while closing " + toClose.get(i).getClass().getSimpleName(), e);
            }
        }
    }
}
