package dev.sluice.internal.lock;

/**
 * The port behind distributed locks: one Redis, a Redlock quorum of independent Redis masters, or this
 * JVM's memory. Every implementation passes the same contract tests. Keys are complete store keys
 * ({@code <prefix>:lock:{<material>}}); the fencing counter lives at {@code <key>:fence}.
 *
 * <p>Implementations never block waiting for a holder: the locks of a {@link LockService} wait, in their key's
 * local queue of waiters, on {@link ReleaseSignals}, which implementations (or their subscriber) signal with the
 * key when an owner releases. Implementations are thread-safe.
 */
public interface LockStore extends AutoCloseable {

    /**
     * Takes the lock for {@code owner} if nobody holds it, with a lease of {@code leaseMillis}, and issues
     * the next fencing token, in one atomic step.
     *
     * @throws dev.sluice.StoreUnavailableException or another runtime exception when the
     *         store cannot be reached; the caller fails closed
     */
    Attempt tryLock(String key, String owner, long leaseMillis);

    /**
     * Deletes the lock if {@code owner} still holds it and wakes waiters.
     *
     * @return false when the lease had run out (a new owner's lock is never touched)
     */
    boolean unlock(String key, String owner);

    /**
     * Passes the lock from {@code holder} to {@code next}, another thread of this JVM queued for it, with a
     * lease of {@code leaseMillis} and a new fencing token, in one atomic step, but only while no other
     * instance waits for the lock: then it releases the lock (waking those waiters) and refuses {@code next},
     * which contends like them, so that one busy JVM cannot keep a lock from the others. When {@code holder}
     * no longer holds the lock, this is an ordinary attempt for {@code next}.
     *
     * <p>Stores that cannot tell whether other instances wait (the in-process store, Redlock) release and
     * refuse ({@link #releaseAndRefuse}), so {@code next} contends as after any release. Not a default method on
     * purpose: a decorating store that forgot to pass it on would silently lose the one-call hand-off.
     *
     * @return whether {@code holder} still held the lock, and {@code next}'s attempt
     * @throws dev.sluice.StoreUnavailableException or another runtime exception when the
     *         store cannot be reached
     */
    Handover handOver(String key, String holder, String next, long leaseMillis);

    /** {@link #handOver} in two steps: release {@code holder}'s lock (waking waiters) and let the next thread contend. */
    static Handover releaseAndRefuse(LockStore store, String key, String holder) {
        return new Handover(store.unlock(key, holder), Attempt.refused(0));
    }

    /**
     * The outcome of {@link #handOver}.
     *
     * @param released whether the holder still held the lock (false: its lease had run out)
     * @param attempt  the next owner's attempt
     */
    record Handover(boolean released, Attempt attempt) {
    }

    /**
     * Sets the remaining lease to {@code leaseMillis} if {@code owner} still holds the lock.
     *
     * @return false when the lease had run out or another owner holds the lock
     */
    boolean extend(String key, String owner, long leaseMillis);

    /**
     * How long, from the start of a successful {@link #tryLock} or {@link #extend} call, the holder may
     * assume it holds the lock. One store: the lease. Redlock: the lease minus the allowance for clock
     * drift between the masters.
     */
    default long validityMillis(long leaseMillis) {
        return leaseMillis;
    }

    @Override
    default void close() {
    }
}
