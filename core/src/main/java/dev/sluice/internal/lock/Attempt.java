package dev.sluice.internal.lock;

/**
 * The answer of a store to one acquisition attempt of a lock or a semaphore permit. Immutable.
 *
 * @param acquired        whether the lock or permit is now held by the caller
 * @param fencingToken    when a lock was acquired: its fencing token, strictly greater than every token
 *                        issued before for the same key; 0 for permits and refusals
 * @param retryHintMillis when refused: how long until the current holder's lease (the earliest permit's
 *                        lease) runs out, {@code >= 0}; waiters poll no later than this in case the
 *                        release message is lost or the holder vanished without releasing
 */
public record Attempt(boolean acquired, long fencingToken, long retryHintMillis) {

    public static Attempt granted(long fencingToken) {
        return new Attempt(true, fencingToken, 0);
    }

    public static Attempt refused(long retryHintMillis) {
        return new Attempt(false, 0, Math.max(0, retryHintMillis));
    }
}
