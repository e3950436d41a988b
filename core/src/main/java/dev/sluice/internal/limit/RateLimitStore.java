package dev.sluice.internal.limit;

import dev.sluice.StoreUnavailableException;
import java.util.List;

/**
 * The port behind the rate-limit engine: Redis in production, the in-process store otherwise. Both run
 * the same contract tests and must give identical decisions for identical inputs and clocks.
 *
 * <p>Implementations are thread-safe.
 */
public interface RateLimitStore extends AutoCloseable {

    /**
     * Decides all requests as one atomic step on the store's clock: if every request is admitted, all are
     * charged; otherwise none is. Redis: one round trip (in Cluster mode, one per hash slot, each slot
     * atomic on its own: a bucket charged in one slot stays charged when another slot refuses the request, but a
     * permit taken in one slot is returned, so that a refused request never holds a permit).
     *
     * @return one outcome per request, in order
     * @throws StoreUnavailableException when the store cannot be reached
     */
    List<BucketOutcome> consume(List<BucketRequest> requests);

    /**
     * Returns the permits of concurrency limits that {@code permitId} holds in the permit sets {@code keys}
     * (taken by {@link #consume} in a {@link ChargeMode#concurrency() concurrency mode}): Redis, one round trip
     * (in Cluster mode, one per hash slot).
     *
     * @return how many of them were still held; an expired one may have been reclaimed already
     * @throws StoreUnavailableException when the store cannot be reached (the permits then run out with their lease)
     */
    int release(List<String> keys, String permitId);

    /**
     * Sets the remaining lease of {@code permitId}'s permit in {@code key} to {@code leaseMillis}, if it has not
     * run out.
     *
     * @return false when the permit had run out (it is gone, and may count for another request)
     * @throws StoreUnavailableException when the store cannot be reached
     */
    boolean renew(String key, String permitId, long leaseMillis);

    @Override
    void close();
}
