package dev.sluice.internal.runtime;

import dev.sluice.internal.config.RedisSettings;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.limit.InProcessRateLimitStore;
import dev.sluice.internal.limit.RateLimitEngine;
import dev.sluice.internal.limit.RateLimitStore;
import dev.sluice.internal.lock.LockService;
import dev.sluice.internal.lock.LockServices;
import dev.sluice.internal.redis.RedisConnector;

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
    private final RateLimitEngine rateLimits;
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile LockService locks;
    private final RedisConnector redis;

    private SluiceRuntime(SluiceConfig config, RateLimitStore store, RedisConnector redis) {
        this.config = config;
        this.redis = redis;
        this.rateLimits = new RateLimitEngine(store, config.keyPrefix());
        closeables.add(store);
    }

    /**
     * Starts a runtime: connects to Redis as configured, loads the Lua scripts (validating operator
     * overrides), or falls back to the in-process store with one WARN.
     *
     * @throws dev.sluice.SluiceConfigException when a script override does not load or credentials are refused
     */
    public static SluiceRuntime start(SluiceConfig config) {
        if (config.redis().mode() == RedisSettings.Mode.IN_PROCESS) {
            if (WARNED_IN_PROCESS.compareAndSet(false, true)) {
                LOG.log(Level.WARNING, "Sluice: sluice.redis.uri is not set; rate limits, locks and semaphores "
                        + "use the in-process store and are local to this JVM");
            }
            return new SluiceRuntime(config, new InProcessRateLimitStore(), null);
        }
        throw new UnsupportedOperationException("Redis runtime not wired yet");
    }

    /** A runtime over a given store (tests, benchmarks). */
    public static SluiceRuntime of(SluiceConfig config, RateLimitStore store) {
        return new SluiceRuntime(config, store, null);
    }

    /** A runtime over a given store and Redis connector, which it closes (tests, benchmarks). */
    public static SluiceRuntime of(SluiceConfig config, RateLimitStore store, RedisConnector redis) {
        SluiceRuntime runtime = new SluiceRuntime(config, store, redis);
        runtime.onClose(redis);
        return runtime;
    }

    /** The application's Redis connection pool; empty for the in-process store. */
    public Optional<RedisConnector> redis() {
        return Optional.ofNullable(redis);
    }

    public SluiceConfig config() {
        return config;
    }

    public RateLimitEngine rateLimits() {
        return rateLimits;
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
                    l = LockServices.create(this);
                    closeables.add(l);
                    locks = l;
                }
            }
        }
        return l;
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
