package dev.sluice.internal.limit;

import java.util.List;

/**
 * One policy's bucket for one key, as the store sees it: the Redis key of its first bandwidth (further
 * bandwidths append {@code :1}, {@code :2}, ... and share the hash tag), the cost, each bandwidth's
 * emission interval and capacity, and how the policy takes part in the decision. Immutable.
 */
public record BucketRequest(String key, long cost, List<Limit> limits, ChargeMode mode) {

    /** An {@link ChargeMode#ENFORCE enforced} bucket. */
    public BucketRequest(String key, long cost, List<Limit> limits) {
        this(key, cost, limits, ChargeMode.ENFORCE);
    }

    /**
     * One bandwidth in store terms. The store counts this bucket's time in units of {@code 1 / unitsPerMicro}
     * µs, in which the interval between two tokens is the whole number {@code intervalUnits}: the interval is
     * exactly {@code intervalUnits / unitsPerMicro} µs. Configuration keeps
     * {@code capacity × intervalUnits + unitsPerMicro} within 2^52.
     *
     * @param intervalUnits time between two tokens, in the bucket's units
     * @param unitsPerMicro units per microsecond, 1 when the interval is a whole number of microseconds
     * @param capacity      bucket capacity in tokens
     */
    public record Limit(long intervalUnits, long unitsPerMicro, long capacity) {

        public Limit {
            if (intervalUnits < 1 || unitsPerMicro < 1 || capacity < 1) {
                throw new IllegalArgumentException("interval " + intervalUnits + "/" + unitsPerMicro
                        + " µs, capacity " + capacity);
            }
        }

        /** A bandwidth whose interval is a whole number of microseconds. */
        public static Limit ofMicros(long intervalMicros, long capacity) {
            return new Limit(intervalMicros, 1, capacity);
        }
    }

    public BucketRequest {
        limits = List.copyOf(limits);
        java.util.Objects.requireNonNull(mode, "mode");
        if (cost < 1 || limits.isEmpty()) {
            throw new IllegalArgumentException("cost " + cost + " with " + limits.size() + " bandwidths");
        }
    }

    /** Redis key of bandwidth {@code index}. */
    public String key(int index) {
        return index == 0 ? key : key + ':' + index;
    }
}
