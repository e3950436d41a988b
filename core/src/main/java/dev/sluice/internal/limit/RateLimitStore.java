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
     * atomic on its own).
     *
     * @return one outcome per request, in order
     * @throws StoreUnavailableException when the store cannot be reached
     */
    List<BucketOutcome> consume(List<BucketRequest> requests);

    @Override
    void close();
}
