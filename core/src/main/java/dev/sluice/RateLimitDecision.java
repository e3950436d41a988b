package dev.sluice;

/**
 * The answer to "may this request go ahead?" for one policy: everything needed to write a 429,
 * {@code Retry-After} and the RateLimit headers comes back from one call.
 *
 * <p>All times are relative to the decision instant on the clock of the store (the Redis server's
 * clock for Redis). Immutable and thread-safe.
 *
 * @param policy           policy name
 * @param allowed          whether the request was admitted (and charged)
 * @param remaining        tokens left in the tightest bandwidth after this decision, {@code >= 0}
 * @param limit            token count of the tightest bandwidth (its quota per window)
 * @param windowSeconds    window of the tightest bandwidth, in whole seconds (at least 1)
 * @param retryAfterMillis when denied: milliseconds until enough tokens for this request are available,
 *                         rounded up, never 0 when denied; {@code -1} means never (cost exceeds capacity).
 *                         When allowed: milliseconds until at least one more token is available (0 when
 *                         {@code remaining > 0})
 * @param resetMillis      milliseconds until the tightest bucket is full again, rounded up
 */
public record RateLimitDecision(
        String policy,
        boolean allowed,
        long remaining,
        long limit,
        long windowSeconds,
        long retryAfterMillis,
        long resetMillis) {

    /** {@code retryAfterMillis} value meaning the request can never be admitted. */
    public static final long NEVER = -1;

    /** Whether the denial is permanent: the request costs more than the bucket can ever hold. */
    public boolean never() {
        return retryAfterMillis == NEVER;
    }
}
