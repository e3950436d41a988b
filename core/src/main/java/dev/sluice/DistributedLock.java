package dev.sluice;

import java.time.Duration;
import java.util.Optional;

/**
 * A lock shared by every node that uses the same Redis. Acquisition returns a {@link LockHandle}
 * holding a fencing token that strictly increases per key.
 *
 * <p>Reentrant for the same thread: acquiring a key this thread already holds succeeds at once without
 * a Redis call and returns a handle with the same fencing token; the lock is released when the
 * outermost handle is closed. While a handle is held its lease is renewed in the background every
 * third of the lease. Thread-safe.
 */
public interface DistributedLock {

    /** {@return the lock key as given (without the Redis key prefix)} */
    String key();

    /**
     * Acquires the lock, waiting at most {@code maxWait}.
     *
     * @param lease   how long the lock lives in Redis if this process stops renewing it
     * @param maxWait how long to wait for a current holder to release; {@code Duration.ZERO} to try once
     * @return the held lock; close it to release
     * @throws LockNotAcquiredException on timeout, or when Redis cannot be asked (fails closed; the cause is
     *                                  then a {@link StoreUnavailableException})
     *
     */
    LockHandle acquire(Duration lease, Duration maxWait);

    /**
     * Tries once.
     *
     * @param lease how long the lock lives in Redis if this process stops renewing it
     * @return the handle, or empty when another owner holds the lock
     * @throws LockNotAcquiredException when Redis cannot be asked (fails closed; the cause is a
     *                                  {@link StoreUnavailableException})
     *
     */
    Optional<LockHandle> tryAcquire(Duration lease);
}
