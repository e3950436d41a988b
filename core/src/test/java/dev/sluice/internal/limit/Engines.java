package dev.sluice.internal.limit;

import dev.sluice.internal.config.RedisSettings;
import dev.sluice.internal.lease.Watchdog;
import dev.sluice.internal.metrics.SluiceMetrics;
import dev.sluice.internal.redis.CircuitBreaker;

/**
 * Engines for tests, built through the one constructor production uses, with defaults for what a test does not
 * care about: a breaker of their own, no deny cache, counts published nowhere, and one watchdog of daemon threads
 * shared by every such engine (made on first use, never closed).
 */
public final class Engines {

    private static final class OwnWatchdog {
        static final Watchdog WATCHDOG = Watchdog.ownScheduler();
    }

    private Engines() {
    }

    /** An engine over {@code store} with the defaults above. */
    public static RateLimitEngine over(RateLimitStore store, String keyPrefix) {
        return over(store, keyPrefix, SluiceMetrics.unpublished(RedisSettings.none()),
                new CircuitBreaker(CircuitBreaker.DEFAULT_THRESHOLD, CircuitBreaker.DEFAULT_COOL_DOWN, System::nanoTime,
                        "the rate-limit store"), new DenyCache(0, System::nanoTime));
    }

    /** An engine over {@code store} with the defaults above, whose local budgets age on {@code nanoTime}. */
    public static RateLimitEngine over(RateLimitStore store, String keyPrefix, java.util.function.LongSupplier nanoTime) {
        return new RateLimitEngine(store, keyPrefix, new CircuitBreaker(CircuitBreaker.DEFAULT_THRESHOLD,
                CircuitBreaker.DEFAULT_COOL_DOWN, System::nanoTime, "the rate-limit store"), new DenyCache(0, System::nanoTime),
                () -> OwnWatchdog.WATCHDOG, SluiceMetrics.unpublished(RedisSettings.none()).rateLimits(), nanoTime);
    }

    /** An engine counting in {@code metrics}, through {@code breaker}, remembering refusals in {@code denials}. */
    public static RateLimitEngine over(RateLimitStore store, String keyPrefix, SluiceMetrics metrics,
                                       CircuitBreaker breaker, DenyCache denials) {
        return new RateLimitEngine(store, keyPrefix, breaker, denials, () -> OwnWatchdog.WATCHDOG, metrics.rateLimits());
    }

    /** As {@link #over(RateLimitStore, String, SluiceMetrics, CircuitBreaker, DenyCache)}, aging on {@code nanoTime}. */
    public static RateLimitEngine over(RateLimitStore store, String keyPrefix, SluiceMetrics metrics,
                                       CircuitBreaker breaker, DenyCache denials, java.util.function.LongSupplier nanoTime) {
        return new RateLimitEngine(store, keyPrefix, breaker, denials, () -> OwnWatchdog.WATCHDOG, metrics.rateLimits(),
                nanoTime);
    }
}
