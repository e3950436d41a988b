package dev.sluice;

import java.time.Duration;

/**
 * Entry point to Sluice's primitives for programmatic use. Inject it ({@code @Inject Sluice sluice})
 * in a CDI application; it is an application-scoped bean backed by the application's single Redis
 * connection pool (or the in-process store when no Redis is configured: none of {@code sluice.redis.uri},
 * {@code sluice.redis.sentinels} and {@code sluice.redis.cluster-nodes}).
 *
 * <p>Thread-safe. The objects it returns are cheap handles and may be cached or created per call.
 */
public interface Sluice {

    /**
     * The rate limiter for a policy configured under {@code sluice.limit.<policy>.*}. It applies the policy's
     * {@code rate}; a {@code concurrency} limit (requests in flight) applies to HTTP requests only.
     *
     * @param policy the policy name
     * @return its limiter
     * @throws SluiceConfigException when no such policy is configured, or it has no {@code rate}
     */
    RateLimiter limiter(String policy);

    /**
     * A distributed lock on {@code key} (the Redis key is {@code <prefix>:lock:{key}}; a key longer than 64
     * characters or outside {@code [A-Za-z0-9._:@/-]} is replaced by its SHA-256 digest there, so request data
     * cannot shape Redis keys). Reentrant for the same thread. Without Redis configured, local to this JVM.
     *
     * @param key the lock key
     * @return the lock; nothing is acquired yet
     */
    DistributedLock lock(String key);

    /**
     * A distributed counting semaphore named {@code name} allowing at most {@code permits} holders across
     * all nodes. {@code sluice.semaphore.<name>.permits} in config overrides {@code permits}.
     *
     * @param name    the semaphore name
     * @param permits the number of holders allowed at once, unless configuration overrides it
     * @return the semaphore; nothing is acquired yet
     * @throws IllegalArgumentException when {@code permits < 1}
     */
    DistributedSemaphore semaphore(String name, int permits);

    /** Default lock lease when none is given: 30 seconds. */
    Duration DEFAULT_LEASE = Duration.ofSeconds(30);
}
