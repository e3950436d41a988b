package dev.sluice;

import java.time.Duration;

/**
 * Proof of holding a {@link DistributedLock}. Close it (try-with-resources) to release.
 *
 * <p>Thread-safe; normally used by the acquiring thread only.
 */
public interface LockHandle extends AutoCloseable {

    /** {@return the lock key} */
    String key();

    /**
     * The fencing token of this acquisition: strictly greater than every token handed out earlier for
     * the same key. Pass it to the protected resource and have it reject writes carrying a token lower
     * than one it has already seen.
     *
     * @return the fencing token, greater than every earlier token of the key
     */
    long fencingToken();

    /**
     * Whether this handle still holds the lease, as last confirmed by the watchdog or an
     * {@link #extend} call. {@code false} once the lease was found expired or taken over.
     *
     * @return whether the lease is still held
     */
    boolean isHeld();

    /**
     * Sets the remaining lease to {@code lease} if this handle still owns the lock. From then on the watchdog
     * renews with this lease, every third of it, and {@link #isHeld()} counts with it, so the lock's expiry in
     * Redis and {@code isHeld()} agree.
     *
     * @param lease the new remaining lease, positive
     * @return {@code false} when the lock was lost (another owner's key is never touched)
     * @throws StoreUnavailableException when Redis cannot be asked, at once while the application's circuit
     *                                   breaker skips Redis after repeated failures
     */
    boolean extend(Duration lease);

    /**
     * Releases the lock (the outermost reentrant handle deletes it; inner ones only count down). Closing
     * twice has no further effect. When Redis cannot be reached, a warning is logged and the lock expires
     * after its lease.
     *
     * <p>When a JTA transaction runs on the closing thread, the release waits for it: the lock is released once
     * the transaction has committed or rolled back, because what was written under the lock is not visible
     * before the commit. Until then the thread can enter the lock again, and its lease is renewed; a lease
     * found lost before the commit rolls the transaction back. Without JTA, or outside a transaction, the lock
     * is released here.
     *
     * @throws LockLostException when the outermost handle finds the lease already lost; the other owner's
     *                           lock is untouched. Inner handles do not throw: check {@link #isHeld()}.
     */
    @Override
    void close();
}
