package dev.sluice.internal.lease;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.LongPredicate;
import java.util.function.LongSupplier;
import java.util.function.LongUnaryOperator;

/**
 * What a holder knows about its lease: the lease it currently asks the store for, until when it is certainly
 * held (on the lock path's monotonic clock, counted from the <em>start</em> of the store call that granted,
 * renewed or extended it, so network time only shortens it), and whether the store has said it is gone.
 *
 * <p>Every store call that sets the lease (the watchdog's renewal, the holder's {@code extend}) goes through
 * {@link #set}, one at a time, so the store's expiry and {@link #isHeld()} always follow the same call: a
 * renewal asks for the lease the last extension set, never the one the lock was acquired with. Thread-safe.
 *
 * <p>The calls are serialised by a {@link ReentrantLock}, not {@code synchronized}: a store call is a Redis round
 * trip, and on JDK 21 to 23 a virtual thread waiting inside {@code synchronized} pins its carrier. Two holders
 * extending at once then pinned both carriers of a two-core machine while the thread that was to send their
 * combined call waited for a carrier (VirtualThreadCallersTest, run with the monitors of those JDKs).
 */
public final class Lease {

    private final LongSupplier clock;
    private final LongUnaryOperator validityMillis;
    private final Consumer<String> onLost;
    private final AtomicBoolean lost = new AtomicBoolean();
    /** Whether {@code onLost} ran: once per lease, for a loss or a lease that could not be confirmed. */
    private final AtomicBoolean reported = new AtomicBoolean();
    private volatile long millis;
    private volatile long heldUntilNanos;
    private final ReentrantLock storeCalls = new ReentrantLock();

    /**
     * @param clock          the lock path's monotonic clock, in nanoseconds
     * @param startedNanos   when the store call that granted the lease started
     * @param millis         the lease granted
     * @param validityMillis how long after the start of a successful store call setting a lease of {@code n}
     *                       ms the holder may count on it (the lease itself, or less for Redlock's drift)
     * @param onLost         run once, by whichever thread first finds the lease lost (metrics, the one warning of
     *                       the loss), with why it was found lost
     */
    public Lease(LongSupplier clock, long startedNanos, long millis, LongUnaryOperator validityMillis,
          Consumer<String> onLost) {
        this.clock = clock;
        this.validityMillis = validityMillis;
        this.onLost = onLost;
        this.millis = millis;
        this.heldUntilNanos = startedNanos + validityMillis.applyAsLong(millis) * 1_000_000L;
    }

    /** The lease, in milliseconds, that renewals ask the store for. */
    public long millis() {
        return millis;
    }

    /**
     * Sets the lease in the store to {@code newMillis} through {@code storeCall} (true when the store still had
     * it), and the local view with it: held until the call's start plus the new validity, or lost. Calls are
     * serialised, so a renewal and an extension never cross.
     *
     * @param newMillis the lease to set; {@link #millis()} for a renewal
     * @throws RuntimeException from {@code storeCall} when the store cannot be reached (the view is unchanged)
     */
    public boolean set(long newMillis, LongPredicate storeCall) {
        storeCalls.lock();
        try {
            long started = clock.getAsLong();
            if (!storeCall.test(newMillis)) {
                markLost();
                return false;
            }
            millis = newMillis;
            heldUntilNanos = started + validityMillis.applyAsLong(newMillis) * 1_000_000L;
            return true;
        } finally {
            storeCalls.unlock();
        }
    }

    /**
     * A renewal: {@link #set} to the current lease, read under the same lock as the call, so that an extension
     * cannot slip in between and be undone.
     */
    public boolean renew(LongPredicate storeCall) {
        storeCalls.lock();
        try {
            return set(millis, storeCall);
        } finally {
            storeCalls.unlock();
        }
    }

    /** With an {@code onLost} that is not told why (tests). */
    public Lease(LongSupplier clock, long startedNanos, long millis, LongUnaryOperator validityMillis, Runnable onLost) {
        this(clock, startedNanos, millis, validityMillis, why -> onLost.run());
    }

    /** The store reported the lease gone (expired or taken over). */
    public void markLost() {
        markLost(GONE);
    }

    /** Why a store call that set the lease found it gone. */
    public static final String GONE = "Redis no longer had it (it expired, or another owner took it)";

    /** Why a release found the lease not confirmed (a watchdog that could not run, a renewal that hung). */
    public static final String UNCONFIRMED = "no renewal was confirmed for a whole lease before it was released";

    /** Why a release found the lease lost: the store said so, or could not be reached once the lease had run out. */
    public static String lostAtRelease(RuntimeException unreachable) {
        return unreachable == null ? "Redis no longer had it when it was released (it expired, or another owner "
                + "took it)" : "Redis could not be reached to release it (" + unreachable + ") and no renewal was "
                + "confirmed for a whole lease";
    }

    /** The lease is lost, for the reason given (for the log); only the first call counts. */
    public void markLost(String why) {
        if (lost.compareAndSet(false, true)) {
            report(why);
        }
    }

    /**
     * No renewal was confirmed for a whole lease: reported like a loss (once per lease, whichever comes first),
     * but not marked lost, since it may still be alive in the store.
     */
    public void reportUnconfirmed(String why) {
        report(why);
    }

    private void report(String why) {
        if (reported.compareAndSet(false, true)) {
            onLost.accept(why);
        }
    }

    public boolean isLost() {
        return lost.get();
    }

    /**
     * Just before the commit of a transaction a release waits for: whether the lease is held; when it is not, that
     * is reported (the transaction is rolled back: what it wrote may not have been written under the lock).
     */
    public boolean stillHeldAtCommit() {
        if (isHeld()) {
            return true;
        }
        reportUnconfirmed("it was not confirmed held when its transaction was about to commit; the transaction "
                + "is rolled back");
        return false;
    }

    /** Held unless the store said otherwise or no renewal has been confirmed for a whole lease. */
    public boolean isHeld() {
        return !lost.get() && heldUntilNanos - clock.getAsLong() > 0;
    }
}
