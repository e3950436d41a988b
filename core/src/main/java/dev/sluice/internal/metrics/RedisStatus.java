package dev.sluice.internal.metrics;

import dev.sluice.internal.config.RedisSettings;
import dev.sluice.internal.redis.CircuitBreaker;
import dev.sluice.internal.redis.RedisFailures;

import java.lang.System.Logger.Level;
import java.util.concurrent.TimeUnit;

/**
 * Whether one application's Redis answered its last call, and whether the rate-limit circuit breaker
 * currently skips it, as two gauges. Callers report every store call's outcome; only a change of state is
 * logged, as one WARNING each way (operators alert on the first and look for the second in the same
 * place). A Redis that flaps logs each direction at most once per {@link #QUIET_NANOS}; the flips in
 * between go to DEBUG. The breaker's own changes are logged by the breaker.
 *
 * <p>Starts reachable (the connector already warned at deployment if it was not). The hot path, a call that
 * succeeds while Redis is reachable, is one volatile read. Thread-safe.
 */
public final class RedisStatus implements CircuitBreaker.Listener {

    /** Minimum time between two log lines of the same direction, so a flapping Redis cannot flood the log. */
    static final long QUIET_NANOS = TimeUnit.SECONDS.toNanos(10);

    private static final System.Logger LOG = System.getLogger("dev.sluice");

    private final String app;
    private final RedisSettings settings;
    private volatile boolean reachable = true;
    private volatile boolean breakerOpen;
    private long lastDownLog = System.nanoTime() - QUIET_NANOS;
    private long lastUpLog = System.nanoTime() - QUIET_NANOS;

    RedisStatus(String app, RedisSettings settings) {
        this.app = app;
        this.settings = settings;
    }

    public RedisSettings.Mode mode() {
        return settings.mode();
    }

    /** A store call got an answer (of any content: Redis is up). */
    @Override
    public void answered() {
        if (!reachable) {
            flip(true, null);
        }
    }

    /** A store call failed because Redis could not be reached or did not answer in time. */
    @Override
    public void failed(Throwable cause) {
        if (reachable) {
            flip(false, cause);
        }
    }

    private void flip(boolean up, Throwable cause) {
        boolean quiet;
        synchronized (this) {
            if (reachable == up) {
                return;
            }
            reachable = up;
            long now = System.nanoTime();
            if (up) {
                quiet = now - lastUpLog < QUIET_NANOS;
                lastUpLog = quiet ? lastUpLog : now;
            } else {
                quiet = now - lastDownLog < QUIET_NANOS;
                lastDownLog = quiet ? lastDownLog : now;
            }
        }
        // Logged outside the lock: every request thread that saw the same change waits on it, and a slow log
        // handler (a console pipe, a remote appender) held it for hundreds of milliseconds per outage.
        if (up) {
            LOG.log(quiet ? Level.DEBUG : Level.WARNING, "Sluice (app " + app + "): Redis answers again; rate limits,"
                    + " locks and semaphores use it again");
        } else {
            LOG.log(quiet ? Level.DEBUG : Level.WARNING, "Sluice (app " + app + "): Redis does not answer ("
                    + RedisFailures.describe(cause, settings) + "); rate limits follow sluice.on-redis-failure,"
                    + " locks and semaphores fail closed until it answers");
        }
    }

    /** Whether the last call reached Redis (always true for the in-process store). */
    public boolean isReachable() {
        return reachable;
    }

    /**
     * The rate-limit gate reports its circuit breaker's state after every check that may have changed it;
     * one volatile write, and the gauges read it.
     */
    @Override
    public void breakerOpen(boolean open) {
        if (breakerOpen != open) {
            breakerOpen = open;
        }
    }

    public boolean isBreakerOpen() {
        return breakerOpen;
    }
}
