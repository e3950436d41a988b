package dev.sluice.internal.limit;

import java.util.List;

/**
 * One policy's bucket for one key, as the store sees it: the Redis key of its first bandwidth (further
 * bandwidths append {@code :1}, {@code :2}, ... and share the hash tag), the cost, and each bandwidth's
 * emission interval and capacity. Immutable.
 */
public record BucketRequest(String key, long cost, List<Limit> limits) {

    /** One bandwidth in store terms: microseconds per token, and bucket capacity in tokens. */
    public record Limit(long intervalMicros, long capacity) {
    }

    public BucketRequest {
        limits = List.copyOf(limits);
        if (cost < 1 || limits.isEmpty()) {
            throw new IllegalArgumentException("cost " + cost + " with " + limits.size() + " bandwidths");
        }
    }

    /** Redis key of bandwidth {@code index}. */
    public String key(int index) {
        return index == 0 ? key : key + ':' + index;
    }
}
