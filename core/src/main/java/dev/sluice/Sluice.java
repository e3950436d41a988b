package dev.sluice;

import java.time.Duration;

/**
 * Entry point to Sluice's primitives for programmatic use. Inject it ({@code @Inject Sluice sluice})
 * in a CDI application; it is an application-scoped bean backed by the application's single Redis
 * connection pool (or the in-process store when {@code sluice.redis.uri} is absent).
 *
 * <p>Thread-safe. The objects it returns are cheap handles and may be cached or created per call.
 */
public interface Sluice {

    /**
     * The rate limiter for a policy configured under {@code sluice.limit.<policy>.*}.
     *
     * @throws SluiceConfigException when no such policy is configured
     */
    RateLimiter limiter(String policy);

    /**
     * A distributed lock on {@code key} (the Redis key is {@code <prefix>:lock:{key}}). Reentrant for the
     * same thread.
     */
    DistributedLock lock(String key);

    /**
     * A distributed counting semaphore named {@code name} allowing at most {@code permits} holders across
     * all nodes. {@code sluice.semaphore.<name>.permits} in config overrides {@code permits}.
     */
    DistributedSemaphore semaphore(String name, int permits);

    /** Default lock lease when none is given: 30 seconds. */
    Duration DEFAULT_LEASE = Duration.ofSeconds(30);
}
