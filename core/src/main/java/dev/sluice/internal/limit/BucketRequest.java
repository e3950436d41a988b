package dev.sluice.internal.limit;

import java.util.List;

/**
 * One policy's bucket for one key, as the store sees it: the Redis key of its first bandwidth (further
 * bandwidths append {@code :1}, {@code :2}, ... and share the hash tag), the cost, each bandwidth's
 * emission interval and capacity, and how the policy takes part in the decision. A concurrency limit
 * ({@link ChargeMode#concurrency()}) has a permit set instead: {@code key} is the set, {@code cost} 1, no
 * bandwidths, and {@code permit} says how many permits, for how long, under which id. A rate policy with a local
 * budget may ask for up to {@code reserve} tokens beyond its cost, which its buckets give when the request is admitted
 * (as many as they hold after the charge), for the node to spend on later requests of the key. Immutable.
 */
public record BucketRequest(String key, long cost, List<Limit> limits, ChargeMode mode, Permit permit, long reserve) {

    /** A rate policy's buckets in {@code mode}. */
    public BucketRequest(String key, long cost, List<Limit> limits, ChargeMode mode) {
        this(key, cost, limits, mode, null, 0);
    }

    /** A request without a reservation. */
    public BucketRequest(String key, long cost, List<Limit> limits, ChargeMode mode, Permit permit) {
        this(key, cost, limits, mode, permit, 0);
    }

    /** A rate policy's buckets in {@code mode}, reserving up to {@code reserve} tokens for the node's local budget. */
    public static BucketRequest reserving(String key, long cost, List<Limit> limits, ChargeMode mode, long reserve) {
        return new BucketRequest(key, cost, limits, mode, null, reserve);
    }

    /** An {@link ChargeMode#ENFORCE enforced} bucket. */
    public BucketRequest(String key, long cost, List<Limit> limits) {
        this(key, cost, limits, ChargeMode.ENFORCE);
    }

    /**
     * A concurrency limit's permit set.
     *
     * @param mode {@link ChargeMode#CONCURRENCY} or {@link ChargeMode#SHADOW_CONCURRENCY}
     */
    public static BucketRequest permits(String key, ChargeMode mode, Permit permit) {
        return new BucketRequest(key, 1, List.of(), mode, permit);
    }

    /**
     * What a concurrency limit asks of its permit set.
     *
     * @param permits     requests of the key allowed in flight at once, {@code >= 1}
     * @param leaseMillis how long the permit is held unless renewed (Redis clock), {@code >= 1}
     * @param id          the permit's id, the same for every concurrency policy of one request
     */
    public record Permit(int permits, long leaseMillis, String id) {

        public Permit {
            if (permits < 1 || leaseMillis < 1 || id == null || id.isEmpty()) {
                throw new IllegalArgumentException(permits + " permits, lease " + leaseMillis + " ms, id " + id);
            }
        }
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
        if (mode.concurrency()) {
            if (permit == null || cost != 1 || !limits.isEmpty()) {
                throw new IllegalArgumentException(mode + " needs a permit, cost 1 and no bandwidth");
            }
        } else if (permit != null || cost < 1 || limits.isEmpty()) {
            throw new IllegalArgumentException("cost " + cost + " with " + limits.size() + " bandwidths"
                    + (permit == null ? "" : " and a permit in mode " + mode));
        }
        if (reserve < 0 || (reserve > 0 && (mode.concurrency() || mode == ChargeMode.REFUND))) {
            throw new IllegalArgumentException("reserve " + reserve + " in mode " + mode);
        }
    }

    /** Redis key of bandwidth {@code index}. */
    public String key(int index) {
        return index == 0 ? key : key + ':' + index;
    }
}
