package dev.sluice.internal.lease;

import java.util.concurrent.atomic.AtomicBoolean;
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
 */
public final class Lease {

    private final LongSupplier clock;
    private final LongUnaryOperator validityMillis;
    private final Runnable onLost;
    private final AtomicBoolean lost = new AtomicBoolean();
    private volatile long millis;
    private volatile long heldUntilNanos;

    /**
     * @param clock          the lock path's monotonic clock, in nanoseconds
     * @param startedNanos   when the store call that granted the lease started
     * @param millis         the lease granted
     * @param validityMillis how long after the start of a successful store call setting a lease of {@code n}
     *                       ms the holder may count on it (the lease itself, or less for Redlock's drift)
     * @param onLost         run once, by whichever thread first finds the lease lost (metrics)
     */
    public Lease(LongSupplier clock, long startedNanos, long millis, LongUnaryOperator validityMillis, Runnable onLost) {
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
    public synchronized boolean set(long newMillis, LongPredicate storeCall) {
        long started = clock.getAsLong();
        if (!storeCall.test(newMillis)) {
            markLost();
            return false;
        }
        millis = newMillis;
        heldUntilNanos = started + validityMillis.applyAsLong(newMillis) * 1_000_000L;
        return true;
    }

    /**
     * A renewal: {@link #set} to the current lease, read under the same lock as the call, so that an extension
     * cannot slip in between and be undone.
     */
    public synchronized boolean renew(LongPredicate storeCall) {
        return set(millis, storeCall);
    }

    /** The store reported the lease gone (expired or taken over). */
    public void markLost() {
        if (lost.compareAndSet(false, true)) {
            onLost.run();
        }
    }

    public boolean isLost() {
        return lost.get();
    }

    /** Held unless the store said otherwise or no renewal has been confirmed for a whole lease. */
    public boolean isHeld() {
        return !lost.get() && heldUntilNanos - clock.getAsLong() > 0;
    }
}
