package dev.sluice.internal.lock;

import java.time.Duration;
import java.util.Optional;

/**
 * The one acquisition loop of locks and semaphores: attempts on the store, parking on {@link ReleaseSignals}
 * between them, until granted, out of time or interrupted. A failed attempt fails closed at once; since it may
 * have been applied although its reply was lost, it is undone off the caller's thread ({@link Cleanups}), so a
 * hung store costs the caller one timeout. What differs between a lock and a semaphore is a {@link Contender}
 * and its {@link Guard}.
 *
 * <p>Stateless; one instance per acquisition.
 */
final class Contention<H> {

    /** The part of one acquisition that depends on what is acquired. */
    interface Contender<H> {
        /** One attempt on the store (the caller's owner token or permit id). */
        Attempt attempt();

        /** Gives back what a lost {@link #attempt()} may have taken; must not touch another owner's lock or permit. */
        void undo();

        /** The holder's handle for a granted attempt whose store call started at {@code attemptStartedNanos}. */
        H granted(Attempt attempt, long attemptStartedNanos);
    }

    private final Guard<H> guard;
    private final LockService service;
    private final Contender<H> contender;
    private final long started;

    /** @param startedNanos when the caller asked, on the service's clock */
    Contention(Guard<H> guard, Contender<H> contender, long startedNanos) {
        this.guard = guard;
        this.service = guard.service;
        this.contender = contender;
        this.started = startedNanos;
    }

    /** Attempts until granted or {@code deadline} (service clock); empty or thrown on timeout as asked. */
    Optional<H> run(long deadline, boolean throwOnTimeout) {
        ReleaseSignals.Waiter waiter = null;
        try {
            while (true) {
                long releasesSeen = service.signals.releases(guard.storeKey);
                long attemptStarted = service.clock.getAsLong();
                Attempt attempt = once();
                if (attempt.acquired()) {
                    return Optional.of(contender.granted(attempt, attemptStarted));
                }
                long left = deadline - service.clock.getAsLong();
                if (left <= 0) {
                    return timedOut(throwOnTimeout);
                }
                waiter = service.signals.park(waiter, guard.storeKey, releasesSeen,
                        Math.min(left, service.pollNanos(attempt.retryHintMillis())));
                if (Thread.currentThread().isInterrupted()) {
                    throw interrupted();
                }
            }
        } finally {
            if (waiter != null) {
                waiter.close();
            }
        }
    }

    /** One attempt through the breaker; a failure fails closed and is undone in the background. */
    Attempt once() {
        try {
            return service.store(guard.describe(), contender::attempt);
        } catch (RuntimeException e) {
            guard.metrics.redisError();
            if (!(e instanceof LockService.Skipped)) {
                service.cleanups.submit(guard.describe(), contender::undo);
            }
            throw guard.notAcquired(waited(), e);
        }
    }

    Optional<H> timedOut(boolean throwOnTimeout) {
        guard.metrics.timedOut();
        if (throwOnTimeout) {
            throw guard.notAcquired(waited(), null);
        }
        return Optional.empty();
    }

    RuntimeException interrupted() {
        return guard.notAcquired(waited(), new InterruptedException());
    }

    Duration waited() {
        return Duration.ofNanos(service.clock.getAsLong() - started);
    }
}
