package dev.sluice.internal.lock;

import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * The threads of one JVM waiting for permits of one semaphore, in arrival order, so that a holder returning its
 * permit can pass it straight to one of them in one store call ({@link SemaphoreStore#handOver}) instead of a
 * return and an acquisition, and so that a return does not wake a herd of local threads for one permit.
 *
 * <p>While nobody of this JVM waits, a caller tries the store at once (many may, with many permits free). A
 * refused caller becomes the one <em>contender</em> of this JVM, which tries the store again whenever a permit
 * is returned (or its poll comes), or, when another thread already contends, queues. When the contender gets a
 * permit or gives up, the first queued thread takes its place. A returning holder claims the contender if it is
 * between attempts, else the first queued thread; a claimed turn can no longer leave and is always resolved,
 * granted the permit or sent to contend.
 *
 * <p>{@link #users} is guarded by the service's gate map; the rest by this object's monitor.
 */
final class PermitGate {

    int users;
    private final ArrayDeque<Turn> queue = new ArrayDeque<>();
    private Turn contender;

    /**
     * A caller arrives with its turn: it may try the store at once when nobody of this JVM waits (true, the turn
     * is then ATTEMPTING), else it is queued (false, WAITING).
     */
    synchronized boolean arrive(Turn turn) {
        if (contender == null && queue.isEmpty()) {
            turn.state = Turn.ATTEMPTING;
            return true;
        }
        queue.add(turn);
        return false;
    }

    /**
     * After a refused attempt: the caller is (or becomes) the contender, IDLE between attempts (true), or, when
     * another thread contends, queues again first in line (false, WAITING): everybody queued arrived after it.
     */
    synchronized boolean refused(Turn turn) {
        if (contender == null || contender == turn) {
            contender = turn;
            turn.state = Turn.IDLE;
            return true;
        }
        turn.state = Turn.WAITING;
        queue.addFirst(turn);
        return false;
    }

    /**
     * For a holder about to return its permit: the thread to hand it to, claimed so that it can no longer leave
     * (the contender when it is between attempts, else the first queued thread); {@code null} when nobody waits,
     * and when the contender's own store call is under way: it arrived before everybody queued, so the permit is
     * returned plainly and its attempt, or its next one once the return is signalled, takes it.
     */
    synchronized Turn claimNext() {
        if (contender != null) {
            if (Turn.STATE.compareAndSet(contender, Turn.IDLE, Turn.CLAIMED)) {
                return contender;
            }
            if (contender.state == Turn.ATTEMPTING) {
                return null;
            }
        }
        Turn turn = queue.poll();
        if (turn != null) {
            turn.state = Turn.CLAIMED;
        }
        return turn;
    }

    /** Gives up a queued turn; false when it was claimed or promoted meanwhile and its outcome must be awaited. */
    synchronized boolean cancel(Turn turn) {
        if (turn.state != Turn.WAITING) {
            return false;
        }
        queue.remove(turn);
        turn.state = Turn.CANCELLED;
        return true;
    }

    /**
     * The caller stops waiting, with a permit or without. When it was the contender, the first queued thread
     * becomes the contender, IDLE: it tries the store once a return is signalled after the last attempt of the
     * one before it (so none is missed, and none is tried for needlessly) or its poll comes, unless a holder of
     * this JVM hands it a permit first.
     */
    synchronized void depart(Turn turn) {
        if (contender != turn) {
            return;
        }
        contender = queue.poll();
        if (contender != null) {
            contender.releasesSeen = turn.releasesSeen;
            contender.state = Turn.IDLE;
            LockSupport.unpark(contender.thread);
        }
    }

    /** Threads of this JVM waiting for a permit: the contender and the queued ones. */
    synchronized int waiting() {
        return queue.size() + (contender == null ? 0 : 1);
    }

    /**
     * One thread's wait for a permit. States: WAITING (queued), ATTEMPTING (its store call under way), IDLE (the
     * contender between attempts, or just made the contender), CLAIMED (by a returning holder), then GRANTED (handed the permit) or CONTEND
     * (to try the store itself), or CANCELLED (gave up while queued). Only the owning thread leaves ATTEMPTING and
     * CONTEND; the holder that claimed it leaves CLAIMED.
     */
    static final class Turn {
        static final int WAITING = 0;
        static final int CLAIMED = 1;
        static final int GRANTED = 2;
        static final int CONTEND = 3;
        static final int CANCELLED = 4;
        static final int IDLE = 5;
        static final int ATTEMPTING = 6;

        static final AtomicIntegerFieldUpdater<Turn> STATE = AtomicIntegerFieldUpdater.newUpdater(Turn.class, "state");

        final Thread thread;
        final String permitId;
        final int permits;
        final long leaseMillis;
        volatile int state = WAITING;
        /** When granted: when the store call that handed the permit over started. */
        long grantedAtNanos;
        /** {@link ReleaseSignals#releases} read before this turn's last attempt, or inherited with the contender role. */
        long releasesSeen;

        Turn(Thread thread, String permitId, int permits, long leaseMillis) {
            this.thread = thread;
            this.permitId = permitId;
            this.permits = permits;
            this.leaseMillis = leaseMillis;
        }

        /** The contender's next attempt: false when a returning holder claimed it meanwhile. */
        boolean resume() {
            return STATE.compareAndSet(this, IDLE, ATTEMPTING);
        }

        /** Resolves a claimed turn with the permit; no effect once resolved. */
        void grant(long startedNanos) {
            grantedAtNanos = startedNanos;
            if (STATE.compareAndSet(this, CLAIMED, GRANTED)) {
                LockSupport.unpark(thread);
            }
        }

        /** Resolves a claimed turn without the permit: its thread tries the store. No effect once resolved. */
        void contend() {
            if (STATE.compareAndSet(this, CLAIMED, CONTEND)) {
                LockSupport.unpark(thread);
            }
        }

        /**
         * Parks while queued, until {@code deadline} or an interrupt, and while claimed, until resolved (within the
         * holder's one store call). Returns in state WAITING (out of time or interrupted), GRANTED, CONTEND, or
         * IDLE (made the contender).
         */
        void await(long deadline, LongSupplier clock) {
            boolean interrupted = false;
            while (state == WAITING || state == CLAIMED) {
                if (state == WAITING) {
                    long left = deadline - clock.getAsLong();
                    if (left <= 0 || Thread.currentThread().isInterrupted()) {
                        break;
                    }
                    LockSupport.parkNanos(this, left);
                } else {
                    LockSupport.park(this);
                    interrupted |= Thread.interrupted();
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
