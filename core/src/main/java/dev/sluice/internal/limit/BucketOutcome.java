package dev.sluice.internal.limit;

/**
 * A store's answer for one {@link BucketRequest}. Immutable.
 *
 * <p>{@link GcraProtocol} reads it from {@code gcra.lua}'s reply.
 *
 * @param allowed     this policy admits the request (it was charged only if every policy of the call admits)
 * @param remaining   tokens left in the tightest bandwidth
 * @param tightest    index of the bandwidth with the fewest tokens left
 * @param waitMicros  denied: microseconds until the request could be admitted, {@code -1} never; admitted:
 *                    microseconds until one more token is available in every bandwidth (the latest of them);
 *                    rounded up
 * @param resetMicros microseconds until the tightest bucket is full again, rounded up
 * @param reserved    tokens taken beyond the charge for the node's local budget ({@link BucketRequest#reserve()}), 0
 *                    to the reserve asked; {@code remaining} counts what is left after them
 */
public record BucketOutcome(boolean allowed, long remaining, int tightest, long waitMicros, long resetMicros,
                            long reserved) {

    /** An outcome without a reservation. */
    public BucketOutcome(boolean allowed, long remaining, int tightest, long waitMicros, long resetMicros) {
        this(allowed, remaining, tightest, waitMicros, resetMicros, 0);
    }
}
