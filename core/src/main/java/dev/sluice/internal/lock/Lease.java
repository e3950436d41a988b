package dev.sluice.internal.lock;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What a holder knows about its lease: until when it is certainly held (on this JVM's monotonic clock,
 * counted from the <em>start</em> of the store call that granted or renewed it, so network time only
 * shortens it), and whether the store has said it is gone. Thread-safe.
 */
final class Lease {

    private final long validityNanos;
    private final Runnable onLost;
    private final AtomicBoolean lost = new AtomicBoolean();
    private volatile long heldUntilNanos;

    Lease(long startedNanos, long validityMillis) {
        this(startedNanos, validityMillis, () -> { });
    }

    /** @param onLost run once, by whichever thread first finds the lease lost (metrics) */
    Lease(long startedNanos, long validityMillis, Runnable onLost) {
        this.validityNanos = validityMillis * 1_000_000L;
        this.heldUntilNanos = startedNanos + validityNanos;
        this.onLost = onLost;
    }

    /** A renewal that started at {@code startedNanos} succeeded. */
    void renewed(long startedNanos) {
        long until = startedNanos + validityNanos;
        if (until - heldUntilNanos > 0) {
            heldUntilNanos = until;
        }
    }

    /** An explicit extension that started at {@code startedNanos} set the lease to {@code validityMillis}. */
    void extended(long startedNanos, long validityMillis) {
        heldUntilNanos = startedNanos + validityMillis * 1_000_000L;
    }

    /** The store reported the lease gone (expired or taken over). */
    void markLost() {
        if (lost.compareAndSet(false, true)) {
            onLost.run();
        }
    }

    boolean isLost() {
        return lost.get();
    }

    /** Held unless the store said otherwise or no renewal has been confirmed for a whole lease. */
    boolean isHeld() {
        return !lost.get() && heldUntilNanos - System.nanoTime() > 0;
    }
}
