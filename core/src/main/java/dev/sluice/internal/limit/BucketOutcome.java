package dev.sluice.internal.limit;

import java.util.ArrayList;
import java.util.List;

/**
 * A store's answer for one {@link BucketRequest}. Immutable.
 *
 * <p>This class also holds the one Java definition of {@code gcra.lua}'s reply: {@value #FIELDS} integers per
 * request, at the offsets {@link #ALLOWED} to {@link #RESET}, which the script's header lists in the same order.
 *
 * @param allowed     this policy admits the request (it was charged only if every policy of the call admits)
 * @param remaining   tokens left in the tightest bandwidth
 * @param tightest    index of the bandwidth with the fewest tokens left
 * @param waitMicros  denied: microseconds until the request could be admitted, {@code -1} never; admitted:
 *                    microseconds until one more token is available in every bandwidth (the latest of them);
 *                    rounded up
 * @param resetMicros microseconds until the tightest bucket is full again, rounded up
 */
public record BucketOutcome(boolean allowed, long remaining, int tightest, long waitMicros, long resetMicros) {

    /** Offset of {@link #allowed()} in a request's part of the reply: 1 or 0. */
    static final int ALLOWED = 0;
    /** Offset of {@link #remaining()}. */
    static final int REMAINING = 1;
    /** Offset of {@link #tightest()}, 0-based. */
    static final int TIGHTEST = 2;
    /** Offset of {@link #waitMicros()}. */
    static final int WAIT = 3;
    /** Offset of {@link #resetMicros()}. */
    static final int RESET = 4;
    /** Integers per request in the reply. */
    static final int FIELDS = 5;

    /**
     * Reads {@code gcra.lua}'s reply: {@value #FIELDS} integers per request, request after request.
     *
     * @throws IllegalStateException when the reply does not have that shape (a replaced script that answers
     *                               differently)
     */
    static List<BucketOutcome> fromReply(Object reply, int count) {
        if (!(reply instanceof List<?> values) || values.size() != count * FIELDS
                || !values.stream().allMatch(Long.class::isInstance)) {
            throw new IllegalStateException("expected " + count * FIELDS + " integers from gcra.lua, got " + reply);
        }
        List<BucketOutcome> outcomes = new ArrayList<>(count);
        for (int at = 0; at < values.size(); at += FIELDS) {
            outcomes.add(new BucketOutcome(
                    (Long) values.get(at + ALLOWED) == 1L,
                    (Long) values.get(at + REMAINING),
                    Math.toIntExact((Long) values.get(at + TIGHTEST)),
                    (Long) values.get(at + WAIT),
                    (Long) values.get(at + RESET)));
        }
        return outcomes;
    }
}
