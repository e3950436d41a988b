package dev.sluice.internal.lock;

import dev.sluice.StoreUnavailableException;
import dev.sluice.SluiceException;
import dev.sluice.internal.metrics.GuardMetrics;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * What a lock and a semaphore share: the two public ways to acquire (wait up to a maximum and throw, or try once)
 * and the checks of their arguments; the one acquisition loop, in the key's {@link WaitQueue}, with attempts on the
 * store parked on {@link ReleaseSignals} between them; and the one hand-over of what a holder gives back. A failed
 * attempt fails closed at once; since it may have been applied although its reply was lost, it is undone off the
 * caller's thread ({@link Cleanups}), so a hung store costs the caller one timeout. Thread-safe.
 *
 * @param <H> what a holder gets: a lock handle or a permit
 */
abstract class Guard<H> {

    /** Makes the exception of a failed acquisition: timed out ({@code cause} null), interrupted or store failure. */
    @FunctionalInterface
    interface NotAcquired {
        SluiceException of(String name, Duration waited, Throwable cause);
    }

    /** What one acquisition asks of the store, under its own owner token or permit id. */
    interface Claim {
        /** One attempt to take the lock or a permit. */
        Attempt attempt();

        /** Gives back what a lost {@link #attempt()} may have taken; must not touch another owner's lock or permit. */
        void undo();

        /** Takes over what {@code holder}, of this JVM, gives back, in one store call ({@link LockStore#handOver}). */
        LockStore.Handover takeOver(String holder);
    }

    /**
     * A granted acquisition.
     *
     * @param queue           the key's queue, which the holder gives back through (and leaves then)
     * @param waiter          the holder's place in it (a lock's holder keeps the turn)
     * @param fencingToken    for a lock; 0 for a permit
     * @param grantedAtNanos  when the store call that granted it started (the lease counts from there)
     * @param acquiredAtNanos when the caller got it
     */
    record Grant(WaitQueue queue, WaitQueue.Waiter waiter, long fencingToken, long grantedAtNanos,
                 long acquiredAtNanos) {
    }

    final String storeKey;
    final GuardMetrics metrics;
    final LockParts parts;
    /** The parts' clock, read on every step of an acquisition. */
    final LongSupplier clock;
    private final boolean exclusive;
    private final String kind;
    private final String name;
    private final String description;
    private final NotAcquired notAcquired;

    /**
     * @param exclusive   true for a lock (one holder; its holder keeps the queue's turn), false for a semaphore
     * @param kind        {@code lock} or {@code semaphore}, for messages
     * @param name        the lock's key or the semaphore's name, as the caller gave it
     * @param description for messages: {@code lock 'order:42'}, {@code a permit of semaphore 'pdf'}
     */
    Guard(boolean exclusive, String kind, String name, String description, String storeKey, GuardMetrics metrics,
          NotAcquired notAcquired, LockParts parts) {
        this.exclusive = exclusive;
        this.kind = kind;
        this.name = name;
        this.description = description;
        this.storeKey = storeKey;
        this.metrics = metrics;
        this.notAcquired = notAcquired;
        this.parts = parts;
        this.clock = parts.clock();
    }

    public H acquire(Duration lease, Duration maxWait) {
        return acquire(lease, maxWait, true).orElseThrow();
    }

    public Optional<H> tryAcquire(Duration lease) {
        return acquire(lease, Duration.ZERO, false);
    }

    private Optional<H> acquire(Duration lease, Duration maxWait, boolean throwOnTimeout) {
        long started = clock.getAsLong();
        long leaseMillis = leaseMillis(kind, name, lease);
        long deadline = started + maxWaitNanos(kind, name, maxWait);
        return acquire(started, leaseMillis, deadline, throwOnTimeout);
    }

    /**
     * One acquisition with checked arguments.
     *
     * @param started  when the caller asked, on the parts' clock
     * @param deadline until when to wait, on the same clock
     * @return the holder's handle; empty when out of time and not {@code throwOnTimeout}
     */
    abstract Optional<H> acquire(long started, long leaseMillis, long deadline, boolean throwOnTimeout);

    /**
     * Waits in the key's queue for {@code claim} until granted (by its own attempt or handed over by a holder of this
     * JVM), out of time or interrupted.
     *
     * @return the grant; empty when out of time and not {@code throwOnTimeout}
     */
    final Optional<Grant> await(Claim claim, long started, long deadline, boolean throwOnTimeout) {
        WaitQueue queue = parts.queues().enter(storeKey, exclusive);
        WaitQueue.Waiter waiter = new WaitQueue.Waiter(claim);
        WaitQueue.Outcome outcome = null;
        try {
            outcome = contend(queue, waiter, started, deadline, throwOnTimeout);
            if (outcome == null) {
                return Optional.empty();
            }
            long acquiredAt = clock.getAsLong();
            metrics.acquired(acquiredAt - started);
            return Optional.of(new Grant(queue, waiter, outcome.fencingToken(), outcome.grantedAtNanos(), acquiredAt));
        } finally {
            if (outcome == null) {
                queue.leave(waiter);
                parts.queues().leave(storeKey, queue);
            }
        }
    }

    /** The loop: the granted outcome, or null when out of time and not {@code throwOnTimeout}. */
    private WaitQueue.Outcome contend(WaitQueue queue, WaitQueue.Waiter waiter, long started, long deadline,
                                      boolean throwOnTimeout) {
        ReleaseSignals.Waiter signals = null;
        try {
            boolean attempt = queue.arrive(waiter);
            long pollNanos = parts.maxPollNanos(); // until a refusal gives a hint
            while (true) {
                if (!attempt) {
                    WaitQueue.Outcome told = waiter.outcome();
                    long left = deadline - clock.getAsLong();
                    if (told == null && (left <= 0 || Thread.currentThread().isInterrupted())) {
                        if (queue.withdraw(waiter)) {
                            return gaveUp(started, throwOnTimeout);
                        }
                        told = waiter.awaitOutcome(); // taken out meanwhile: told within the holder's store call
                    }
                    if (told == null) {
                        if (!queue.hasTurn(waiter)) {
                            LockSupport.parkNanos(this, left); // until taken out, given the turn or out of time
                            continue;
                        }
                        signals = parts.signals().park(signals, storeKey, waiter.releasesSeen,
                                Math.min(left, pollNanos), () -> waiter.outcome() != null);
                        if (waiter.outcome() != null || Thread.currentThread().isInterrupted()
                                || !queue.toStore(waiter)) {
                            continue; // told, interrupted, or taken out by a holder (told soon)
                        }
                    } else if (told.granted()) {
                        queue.granted(waiter);
                        return told;
                    }
                }
                waiter.releasesSeen = parts.signals().releases(storeKey);
                long attemptStarted = clock.getAsLong();
                Attempt tried = once(waiter.claim, started);
                if (tried.acquired()) {
                    queue.granted(waiter);
                    return WaitQueue.Outcome.granted(tried.fencingToken(), attemptStarted);
                }
                if (deadline - clock.getAsLong() <= 0) {
                    return timedOut(throwOnTimeout, started);
                }
                queue.refused(waiter);
                attempt = false;
                pollNanos = parts.pollNanos(tried.retryHintMillis());
            }
        } finally {
            if (signals != null) {
                signals.close();
            }
        }
    }

    /** One attempt through the breaker; a failure fails closed and is undone in the background. */
    private Attempt once(Claim claim, long started) {
        try {
            return parts.calls().call(description, claim::attempt);
        } catch (RuntimeException e) {
            metrics.redisError();
            if (!(e instanceof StoreUnavailableException skipped && skipped.isSkipped())) {
                parts.cleanups().submit(description, claim::undo);
            }
            throw notAcquired(waited(started), e);
        }
    }

    private WaitQueue.Outcome gaveUp(long started, boolean throwOnTimeout) {
        if (Thread.currentThread().isInterrupted()) {
            throw notAcquired(waited(started), new InterruptedException());
        }
        return timedOut(throwOnTimeout, started);
    }

    private WaitQueue.Outcome timedOut(boolean throwOnTimeout, long started) {
        metrics.timedOut();
        if (throwOnTimeout) {
            throw notAcquired(waited(started), null);
        }
        return null;
    }

    private Duration waited(long started) {
        return Duration.ofNanos(clock.getAsLong() - started);
    }

    /**
     * The one hand-over of locks and permits: gives back what {@code holder} holds under {@code holderId}, handed to
     * the next waiter of this JVM in one store call ({@link Claim#takeOver}) or, when nobody waits (or the store
     * refuses the hand-over: another node waits), released by {@code release} so that the next waiter contends.
     * The waiter taken out is told either way, whatever the store answers; the holder leaves the queue.
     *
     * @return whether the holder still held it
     * @throws RuntimeException when the store cannot be reached
     */
    final boolean giveBack(Grant grant, String holderId, BooleanSupplier release) {
        WaitQueue queue = grant.queue();
        WaitQueue.Waiter next = queue.claimNext(grant.waiter());
        try {
            return parts.calls().call(description, () -> next == null ? release.getAsBoolean()
                    : handOver(queue, next, holderId));
        } finally {
            if (next == null) {
                queue.released(grant.waiter());
            } else {
                queue.resolve(next, WaitQueue.Outcome.CONTEND); // unless handed over; never left parked
            }
            parts.queues().leave(storeKey, queue);
        }
    }

    private boolean handOver(WaitQueue queue, WaitQueue.Waiter next, String holderId) {
        long started = clock.getAsLong();
        LockStore.Handover handover = next.claim.takeOver(holderId);
        if (handover.attempt().acquired()) {
            queue.resolve(next, WaitQueue.Outcome.granted(handover.attempt().fencingToken(), started));
        }
        return handover.released();
    }

    /** @param kind {@code lock} or {@code semaphore}, for the message, with {@code name} */
    static long leaseMillis(String kind, String name, Duration lease) {
        if (lease == null || lease.isNegative() || lease.isZero() || lease.toMillis() < 1) {
            throw new IllegalArgumentException("lease of " + kind + " '" + name + "' must be at least 1ms, was " + lease);
        }
        return lease.toMillis();
    }

    static long maxWaitNanos(String kind, String name, Duration maxWait) {
        if (maxWait == null || maxWait.isNegative()) {
            throw new IllegalArgumentException("maxWait of " + kind + " '" + name + "' must be zero or positive, was "
                    + maxWait);
        }
        return maxWait.toNanos();
    }

    /** The exception of a failed acquisition: timed out ({@code cause} null), interrupted or store failure. */
    final SluiceException notAcquired(Duration waited, Throwable cause) {
        return notAcquired.of(name, waited, cause);
    }

    /** For messages: {@code lock 'order:42'}, {@code a permit of semaphore 'pdf'}. */
    final String describe() {
        return description;
    }
}
