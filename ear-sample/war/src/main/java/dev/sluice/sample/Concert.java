package dev.sluice.sample;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The seats of one concert as a database would hold them: a sale becomes visible to other buyers
 * only when its transaction commits. Also the sample's witness of how the lock behaved: how many
 * buyers were ever inside the critical section at once, and whether the lock was still held when
 * each sale committed.
 *
 * <p>Thread-safe.
 */
final class Concert {

    static final int SEATS = 10;

    private final AtomicInteger committedSales = new AtomicInteger();
    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger overlaps = new AtomicInteger();
    private final AtomicInteger commitsAfterLockRelease = new AtomicInteger();

    /** Seats sold by committed transactions. */
    int committedSales() {
        return committedSales.get();
    }

    /** A buyer enters the section the lock should make exclusive (from lock to commit). */
    void enter() {
        if (inside.incrementAndGet() > 1) {
            overlaps.incrementAndGet();
        }
    }

    /** The buyer's transaction has completed, committed or not. */
    void leave() {
        inside.decrementAndGet();
    }

    /** A sale committed; {@code lockStillHeld} says whether another thread was still kept out at that moment. */
    void committed(boolean lockStillHeld) {
        committedSales.incrementAndGet();
        if (!lockStillHeld) {
            commitsAfterLockRelease.incrementAndGet();
        }
    }

    /** A line-per-fact report, easy to read with curl and to parse in a test. */
    String report() {
        return "sold=" + committedSales.get() + "\n"
                + "seats=" + SEATS + "\n"
                + "overlaps=" + overlaps.get() + "\n"
                + "commitsAfterLockRelease=" + commitsAfterLockRelease.get() + "\n";
    }
}
