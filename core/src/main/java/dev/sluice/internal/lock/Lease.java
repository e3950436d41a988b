package dev.sluice.internal.lock;

/**
 * What a holder knows about its lease: until when it is certainly held (on this JVM's monotonic clock,
 * counted from the <em>start</em> of the store call that granted or renewed it, so network time only
 * shortens it), and whether the store has said it is gone. Thread-safe.
 */
final class Lease {

    private final long validityNanos;
    private volatile long heldUntilNanos;
    private volatile boolean lost;

    Lease(long startedNanos, long validityMillis) {
        this.validityNanos = validityMillis * 1_000_000L;
        this.heldUntilNanos = startedNanos + validityNanos;
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
        lost = true;
    }

    boolean isLost() {
        return lost;
    }

    /** Held unless the store said otherwise or no renewal has been confirmed for a whole lease. */
    boolean isHeld() {
        return !lost && heldUntilNanos - System.nanoTime() > 0;
    }
}
