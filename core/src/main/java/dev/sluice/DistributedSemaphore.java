package dev.sluice;

import java.time.Duration;
import java.util.Optional;

/**
 * A counting semaphore shared by every node that uses the same Redis: at most {@link #permits()}
 * permits are held at any time. Expired permits (whose holder stopped renewing) are reclaimed on the
 * Redis clock. Not reentrant: each acquisition takes a permit. Fairness is not promised. Thread-safe.
 */
public interface DistributedSemaphore {

    /** {@return the semaphore name} */
    String name();

    /** {@return the configured number of permits (config {@code sluice.semaphore.<name>.permits} wins)} */
    int permits();

    /**
     * Takes a permit, waiting at most {@code maxWait}.
     *
     * @param lease   how long the permit lives in Redis if this process stops renewing it
     * @param maxWait how long to wait for a permit to be returned; {@code Duration.ZERO} to try once
     * @return the held permit; close it to return
     * @throws PermitNotAcquiredException on timeout, or when Redis cannot be asked (fails closed; the cause
     *                                    is then a {@link StoreUnavailableException})
     *
     */
    Permit acquire(Duration lease, Duration maxWait);

    /**
     * Tries once.
     *
     * @param lease how long the permit lives in Redis if this process stops renewing it
     * @return the permit, or empty when all permits are held
     * @throws PermitNotAcquiredException when Redis cannot be asked (fails closed; the cause is a
     *                                    {@link StoreUnavailableException})
     *
     */
    Optional<Permit> tryAcquire(Duration lease);
}
