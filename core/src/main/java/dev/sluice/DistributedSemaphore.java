package dev.sluice;

import java.time.Duration;
import java.util.Optional;

/**
 * A counting semaphore shared by every node that uses the same Redis: at most {@link #permits()}
 * permits are held at any time. Expired permits (whose holder stopped renewing) are reclaimed on the
 * Redis clock. Not reentrant: each acquisition takes a permit. Fairness is not promised. Thread-safe.
 */
public interface DistributedSemaphore {

    /** The semaphore name. */
    String name();

    /** The configured number of permits (config {@code sluice.semaphore.<name>.permits} wins). */
    int permits();

    /**
     * Takes a permit, waiting at most {@code maxWait}.
     *
     * @throws PermitNotAcquiredException on timeout or when Redis is unreachable (fails closed)
     */
    Permit acquire(Duration lease, Duration maxWait);

    /** Tries once; empty when all permits are held. */
    Optional<Permit> tryAcquire(Duration lease);
}
