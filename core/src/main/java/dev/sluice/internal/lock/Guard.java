package dev.sluice.internal.lock;

import dev.sluice.SluiceException;
import dev.sluice.internal.metrics.GuardMetrics;

import java.time.Duration;
import java.util.Optional;

/**
 * What a lock and a semaphore of a {@link LockService} share: the two public ways to acquire (wait up to a
 * maximum and throw, or try once), the checks of their arguments, and what a failed acquisition throws.
 * Thread-safe.
 *
 * @param <H> what a holder gets: a lock handle or a permit
 */
abstract class Guard<H> {

    /** Makes the exception of a failed acquisition: timed out ({@code cause} null), interrupted or store failure. */
    @FunctionalInterface
    interface NotAcquired {
        SluiceException of(String name, Duration waited, Throwable cause);
    }

    final LockService service;
    final String storeKey;
    final GuardMetrics metrics;
    private final String kind;
    private final String name;
    private final String description;
    private final NotAcquired notAcquired;

    /**
     * @param kind        {@code lock} or {@code semaphore}, for messages
     * @param name        the lock's key or the semaphore's name, as the caller gave it
     * @param description for messages: {@code lock 'order:42'}, {@code a permit of semaphore 'pdf'}
     */
    Guard(LockService service, String kind, String name, String description, String storeKey, GuardMetrics metrics,
          NotAcquired notAcquired) {
        this.service = service;
        this.kind = kind;
        this.name = name;
        this.description = description;
        this.storeKey = storeKey;
        this.metrics = metrics;
        this.notAcquired = notAcquired;
    }

    public H acquire(Duration lease, Duration maxWait) {
        return acquire(lease, maxWait, true).orElseThrow();
    }

    public Optional<H> tryAcquire(Duration lease) {
        return acquire(lease, Duration.ZERO, false);
    }

    private Optional<H> acquire(Duration lease, Duration maxWait, boolean throwOnTimeout) {
        long started = service.clock.getAsLong();
        long leaseMillis = LockService.leaseMillis(kind, name, lease);
        long deadline = started + LockService.maxWaitNanos(kind, name, maxWait);
        return acquire(started, leaseMillis, deadline, throwOnTimeout);
    }

    /**
     * One acquisition with checked arguments.
     *
     * @param started  when the caller asked, on the service's clock
     * @param deadline until when to wait, on the same clock
     * @return the holder's handle; empty when out of time and not {@code throwOnTimeout}
     */
    abstract Optional<H> acquire(long started, long leaseMillis, long deadline, boolean throwOnTimeout);

    /** The exception of a failed acquisition: timed out ({@code cause} null), interrupted or store failure. */
    final SluiceException notAcquired(Duration waited, Throwable cause) {
        return notAcquired.of(name, waited, cause);
    }

    /** For messages: {@code lock 'order:42'}, {@code a permit of semaphore 'pdf'}. */
    final String describe() {
        return description;
    }
}
