package dev.sluice.internal.lock;

import java.util.ArrayDeque;
import java.util.concurrent.locks.LockSupport;

/**
 * The threads of one JVM waiting for one lock or one semaphore, in arrival order: the one local queue of both (the
 * shape of Failsafe's {@code BulkheadImpl} over its {@code FutureLinkedList}). A holder giving back takes the first
 * waiter out of the queue ({@link #claimNext}) and tells it its {@link Outcome}: handed the lock or permit in the
 * holder's one store call, or sent to contend in the store. A waiter taken out can no longer leave and is always
 * told; a waiter still in the queue leaves it by {@link #withdraw} (out of time, interrupted).
 *
 * <p>One waiter has the <em>turn</em>: it alone of this JVM tries the store between releases, parked on
 * {@link ReleaseSignals} while it waits in the queue (first in line, so a returning holder may still hand it what
 * it returns), the others parked until taken out or given the turn. Whoever leaves the turn passes it to the first
 * waiter. For a lock the turn lasts through the hold: a thread arriving while another of this JVM holds or contends
 * queues without a store call, so one thread per JVM and key is in the store at a time. For a semaphore it ends
 * with the grant, and a thread arriving while nobody of this JVM waits tries the store at once (many may, with many
 * permits free); a refused one waits in the queue, first in line, and takes the turn if nobody has it.
 *
 * <p>Thread-safe: every field but {@link #users} is guarded by this object's monitor; {@link #users} by the map of
 * {@link WaitQueues}.
 */
final class WaitQueue {

    /** What a claimed waiter is told: granted (with the fencing token, and when the granting call started) or not. */
    record Outcome(boolean granted, long fencingToken, long grantedAtNanos) {

        /** Not handed over: try the store. */
        static final Outcome CONTEND = new Outcome(false, 0, 0);

        static Outcome granted(long fencingToken, long grantedAtNanos) {
            return new Outcome(true, fencingToken, grantedAtNanos);
        }
    }

    /**
     * {@link Waiter#releasesSeen} of a waiter given the turn by a holder that released without handing over: any
     * release counter differs from it, so that waiter tries the store at once.
     */
    static final long ANY_RELEASE = Long.MIN_VALUE;

    /** Acquisitions using this queue (those waiting, and holders that will give back through it). */
    int users;
    private final boolean turnLastsThroughHold;
    private final ArrayDeque<Waiter> queue = new ArrayDeque<>();
    private Waiter turn;
    /** Whether {@link #turn}'s own store call is under way. */
    private boolean turnInStore;

    /** @param turnLastsThroughHold true for a lock: its holder keeps the turn; false for a semaphore */
    WaitQueue(boolean turnLastsThroughHold) {
        this.turnLastsThroughHold = turnLastsThroughHold;
    }

    /**
     * A caller arrives: true when it tries the store at once (nobody of this JVM has the turn; a lock's caller takes
     * it), false when it was queued.
     */
    synchronized boolean arrive(Waiter waiter) {
        if (turn != null) {
            queue.add(waiter);
            return false;
        }
        if (turnLastsThroughHold) {
            turn = waiter;
            turnInStore = true;
        }
        return true;
    }

    /**
     * After a refused attempt: the waiter waits in the queue, first in line (everybody queued arrived after it) but
     * for the waiter with the turn, or with the turn when nobody else has it, to be told a new outcome (it may
     * have been sent to contend before).
     */
    synchronized void refused(Waiter waiter) {
        waiter.outcome = null;
        if (turn == null) {
            turn = waiter;
        }
        if (turn == waiter) {
            turnInStore = false;
            queue.addFirst(waiter);
        } else if (queue.peekFirst() == turn) {
            queue.pollFirst(); // behind the waiter with the turn, which was refused before it
            queue.addFirst(waiter);
            queue.addFirst(turn);
        } else {
            queue.addFirst(waiter);
        }
    }

    synchronized boolean hasTurn(Waiter waiter) {
        return turn == waiter;
    }

    /**
     * The waiter with the turn, woken (a release signalled, its poll due), leaves the queue to try the store: false
     * when a returning holder took it out meanwhile; its outcome follows.
     */
    synchronized boolean toStore(Waiter waiter) {
        if (!queue.remove(waiter)) {
            return false;
        }
        turnInStore = true;
        return true;
    }

    /** A waiter gives up while queued: false when it was taken out meanwhile, and its outcome must be awaited. */
    synchronized boolean withdraw(Waiter waiter) {
        return queue.remove(waiter);
    }

    /** A waiter got the lock or permit: a lock's keeps the turn while it holds, a semaphore's passes it on. */
    synchronized void granted(Waiter waiter) {
        if (turn != waiter) {
            return;
        }
        if (turnLastsThroughHold) {
            turnInStore = false;
        } else {
            passTurn(waiter.releasesSeen);
        }
    }

    /** A waiter stops waiting without the lock or permit (out of time, interrupted, a failed store call). */
    synchronized void leave(Waiter waiter) {
        queue.remove(waiter);
        if (turn == waiter) {
            passTurn(waiter.releasesSeen);
        }
    }

    /**
     * For a holder about to give back: the waiter to hand over to, taken out of the queue so that it can no longer
     * leave (a lock's turn goes with it); {@code null} when nobody waits, and while the turn's own store call is
     * under way: that waiter arrived before everybody queued, so a plain release lets its call, or its next one
     * once the release is signalled, take what is given back.
     */
    synchronized Waiter claimNext(Waiter holder) {
        if (turnInStore) {
            return null;
        }
        Waiter next = queue.poll();
        if (next != null && turn == holder) {
            turn = next;
        }
        return next;
    }

    /** A holder released without handing over: a waiter that queued meanwhile takes its turn and tries at once. */
    synchronized void released(Waiter holder) {
        if (turn == holder) {
            passTurn(ANY_RELEASE);
        }
    }

    /** Tells a waiter taken out by {@link #claimNext} its outcome, once; later calls have no effect. */
    synchronized void resolve(Waiter waiter, Outcome outcome) {
        if (waiter.outcome != null) {
            return;
        }
        if (!outcome.granted() && turn == waiter) {
            turnInStore = true;
        }
        waiter.outcome = outcome;
        LockSupport.unpark(waiter.thread);
    }

    /** The first waiter takes the turn, watching for releases signalled since {@code releasesSeen}. */
    private void passTurn(long releasesSeen) {
        turnInStore = false;
        turn = queue.peek();
        if (turn != null) {
            turn.releasesSeen = releasesSeen;
            LockSupport.unpark(turn.thread);
        }
    }

    /** Waiters other than the one with the turn (for a lock: the threads behind its holder or contender). */
    synchronized int queued() {
        return queue.size() - (turn != null && queue.contains(turn) ? 1 : 0);
    }

    /** Waiters with the one with the turn (for a semaphore: every thread of this JVM waiting for a permit). */
    synchronized int waiting() {
        return queued() + (turn == null ? 0 : 1);
    }

    /** One thread's wait: what it asks of the store, and what a holder tells it. */
    static final class Waiter {
        final Thread thread;
        final Guard.Claim claim;
        /**
         * {@link ReleaseSignals#releases} read before this waiter's last attempt, or passed on with the turn; written
         * by other threads only under the queue's monitor, and read by its own after {@link #hasTurn}.
         */
        long releasesSeen;
        private volatile Outcome outcome;

        Waiter(Guard.Claim claim) {
            this.thread = Thread.currentThread();
            this.claim = claim;
        }

        /** The outcome a holder told it; null until then. */
        Outcome outcome() {
            return outcome;
        }

        /**
         * Parks until told its outcome, keeping an interrupt for later: a waiter taken out learns it within the
         * holder's one store call.
         */
        Outcome awaitOutcome() {
            boolean interrupted = false;
            while (outcome == null) {
                LockSupport.park(this);
                interrupted |= Thread.interrupted();
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            return outcome;
        }
    }
}
