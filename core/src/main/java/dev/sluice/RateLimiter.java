package dev.sluice;

/**
 * One configured rate-limit policy ({@code sluice.limit.<policy>.*}), applied per key.
 *
 * <p>Each call is one atomic decision on the store (one Redis round trip on the Redis clock): all
 * bandwidths of the policy are checked and charged together, or none is. Implementations are
 * thread-safe.
 */
public interface RateLimiter {

    /** {@return the policy name} */
    String policy();

    /**
     * Takes the policy's configured cost for {@code key} if available; never blocks.
     *
     * @param key the client key within the policy, e.g. an address or an API key
     * @return the decision, allowed or not
     * @throws StoreUnavailableException when Redis cannot be asked (it failed, or is skipped after repeated
     *                                   failures) and the policy's {@code on-redis-failure} is {@code deny};
     *                                   with {@code allow} (the default) the call is admitted instead
     *
     */
    RateLimitDecision tryAcquire(String key);

    /**
     * Takes {@code cost} tokens for {@code key} if available; never blocks.
     *
     * @param key  the client key within the policy
     * @param cost tokens to take, at least 1
     * @return the decision, allowed or not
     * @throws IllegalArgumentException  when {@code cost < 1}
     * @throws StoreUnavailableException as {@link #tryAcquire(String)}
     */
    RateLimitDecision tryAcquire(String key, long cost);

    /**
     * Gives {@code key} its whole burst back at once, on every node: deletes the policy's bucket for it and makes
     * every node of the application forget that it was refusing it (the JMX operation {@code reset(key)} of the
     * policy does the same). Requests of the key in flight under a concurrency limit keep their permits.
     *
     * @param key the client key within the policy, as given to {@link #tryAcquire(String)}
     * @throws IllegalArgumentException  when {@code key} is empty
     * @throws StoreUnavailableException when Redis cannot be reached
     */
    void reset(String key);

    /**
     * Takes the configured cost for {@code key} or throws.
     *
     * @param key the client key within the policy
     * @return the decision, always allowed
     * @throws RateLimitExceededException when denied, carrying the decision
     * @throws StoreUnavailableException  as {@link #tryAcquire(String)}
     */
    default RateLimitDecision acquireOrThrow(String key) {
        RateLimitDecision decision = tryAcquire(key);
        if (!decision.allowed()) {
            throw new RateLimitExceededException(decision);
        }
        return decision;
    }
}
