package dev.sluice;

import java.io.Serializable;
import java.util.Objects;

/**
 * The answer to "may this request go ahead?" for one policy: everything needed to write a 429,
 * {@code Retry-After} and the RateLimit headers comes back from one call.
 *
 * <p>All times are relative to the decision instant on the clock of the store (the Redis server's
 * clock for Redis). Created by {@link #of}, so that fields can be added without breaking callers.
 * Immutable, thread-safe and serializable (it travels inside {@link RateLimitExceededException}).
 */
public final class RateLimitDecision implements Serializable {

    private static final long serialVersionUID = 1L;

    /** {@code retryAfterMillis} value meaning the request can never be admitted. */
    public static final long NEVER = -1;

    /** The policy name. */
    private final String policy;
    /** Whether the request was admitted. */
    private final boolean allowed;
    /** Tokens left in the tightest bandwidth. */
    private final long remaining;
    /** Token count of the tightest bandwidth. */
    private final long limit;
    /** Window of the tightest bandwidth, in seconds. */
    private final long windowSeconds;
    /** See {@link #retryAfterMillis()}. */
    private final long retryAfterMillis;
    /** Milliseconds until the tightest bucket is full again. */
    private final long resetMillis;
    /** Whether the limit counts requests in flight rather than a rate. */
    private final boolean concurrent;

    private RateLimitDecision(String policy, boolean allowed, long remaining, long limit, long windowSeconds,
                              long retryAfterMillis, long resetMillis, boolean concurrent) {
        this.policy = Objects.requireNonNull(policy, "policy");
        this.allowed = allowed;
        this.remaining = remaining;
        this.limit = limit;
        this.windowSeconds = windowSeconds;
        this.retryAfterMillis = retryAfterMillis;
        this.resetMillis = resetMillis;
        this.concurrent = concurrent;
    }

    /**
     * A decision.
     *
     * @param policy           policy name
     * @param allowed          whether the request was admitted (and charged)
     * @param remaining        tokens left in the tightest bandwidth after this decision, {@code >= 0}
     * @param limit            capacity of the tightest bandwidth's bucket (its burst, or its token count without one)
     * @param windowSeconds    seconds that bucket takes to refill from empty, rounded up, at least 1 (the
     *                         bandwidth's period when it has no burst)
     * @param retryAfterMillis when denied: milliseconds until enough tokens for this request are available,
     *                         rounded up, never 0 when denied; {@link #NEVER} means never (cost exceeds
     *                         capacity). When allowed: milliseconds until one more token is available in every
     *                         bandwidth (0 when {@code remaining > 0})
     * @param resetMillis      milliseconds until the tightest bucket is full again, rounded up
     * @return the decision
     */
    public static RateLimitDecision of(String policy, boolean allowed, long remaining, long limit, long windowSeconds,
                                       long retryAfterMillis, long resetMillis) {
        return new RateLimitDecision(policy, allowed, remaining, limit, windowSeconds, retryAfterMillis, resetMillis,
                false);
    }

    /**
     * A decision of a concurrency limit ({@code sluice.limit.<policy>.concurrency}), which counts requests in
     * flight rather than a rate: {@link #remaining()} is the free permits, {@link #limit()} the permits, and
     * {@link #windowSeconds()} 0, as such a limit has no window.
     *
     * @param policy           policy name
     * @param allowed          whether the request was admitted (and holds a permit)
     * @param free             permits left free after this decision, {@code >= 0}
     * @param permits          requests of one key allowed in flight at once
     * @param retryAfterMillis when denied: milliseconds to wait before trying again, never 0; when allowed: 0 while
     *                         a permit is free
     * @param resetMillis      milliseconds until the last permit held now runs out if it is not renewed
     * @return the decision
     */
    public static RateLimitDecision ofConcurrency(String policy, boolean allowed, long free, long permits,
                                                  long retryAfterMillis, long resetMillis) {
        return new RateLimitDecision(policy, allowed, free, permits, 0, retryAfterMillis, resetMillis, true);
    }

    /** {@return the policy name} */
    public String policy() {
        return policy;
    }

    /** {@return whether the request was admitted (and charged)} */
    public boolean allowed() {
        return allowed;
    }

    /** {@return tokens left in the tightest bandwidth after this decision, {@code >= 0}} */
    public long remaining() {
        return remaining;
    }

    /** {@return the capacity of the tightest bandwidth's bucket: its burst, or its token count without one} */
    public long limit() {
        return limit;
    }

    /** {@return seconds the tightest bucket takes to refill from empty, rounded up, at least 1 (the period without a burst)} */
    public long windowSeconds() {
        return windowSeconds;
    }

    /**
     * When denied: milliseconds until enough tokens for this request are available, rounded up, never 0;
     * {@link #NEVER} when it can never pass. When allowed: milliseconds until one more token is available in
     * every bandwidth (0 while tokens remain).
     *
     * @return the wait in milliseconds, or {@link #NEVER}
     */
    public long retryAfterMillis() {
        return retryAfterMillis;
    }

    /** {@return milliseconds until the tightest bucket is full again, rounded up} */
    public long resetMillis() {
        return resetMillis;
    }

    /** {@return whether the limit counts requests in flight ({@link #ofConcurrency}) rather than a rate} */
    public boolean concurrent() {
        return concurrent;
    }

    /** {@return whether the denial is permanent: the request costs more than the bucket can ever hold} */
    public boolean never() {
        return retryAfterMillis == NEVER;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RateLimitDecision d && policy.equals(d.policy) && allowed == d.allowed
                && remaining == d.remaining && limit == d.limit && windowSeconds == d.windowSeconds
                && retryAfterMillis == d.retryAfterMillis && resetMillis == d.resetMillis && concurrent == d.concurrent;
    }

    @Override
    public int hashCode() {
        return Objects.hash(policy, allowed, remaining, limit, windowSeconds, retryAfterMillis, resetMillis, concurrent);
    }

    @Override
    public String toString() {
        return "RateLimitDecision[policy=" + policy + ", allowed=" + allowed + ", remaining=" + remaining
                + ", limit=" + limit + ", windowSeconds=" + windowSeconds + ", retryAfterMillis=" + retryAfterMillis
                + ", resetMillis=" + resetMillis + (concurrent ? ", concurrent" : "") + "]";
    }
}
