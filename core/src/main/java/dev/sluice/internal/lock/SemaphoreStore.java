package dev.sluice.internal.lock;

/**
 * The port behind distributed semaphores: Redis (a sorted set of permit ids scored by their expiry on the
 * Redis clock) or this JVM's memory. Both pass the same contract tests. Keys are complete store keys
 * ({@code <prefix>:sem:{<name>}}).
 *
 * <p>The number of permits travels with every acquisition instead of being stored, so a changed
 * {@code permits} setting takes effect at the next acquisition; holders above a lowered limit keep their
 * permits until they release. Implementations are thread-safe.
 */
public interface SemaphoreStore extends AutoCloseable {

    /**
     * Reclaims expired permits, then admits {@code permitId} if fewer than {@code permits} are held, in
     * one atomic step. A {@code permitId} that already holds a live permit (a retry after a lost reply) is
     * admitted again with the new lease.
     *
     * @throws RuntimeException when the store cannot be reached; the caller fails closed
     */
    Attempt tryAcquire(String key, String permitId, int permits, long leaseMillis);

    /**
     * Returns the permit and wakes waiters.
     *
     * @return false when the permit had already expired (it was reclaimed and may be held by another)
     */
    boolean release(String key, String permitId);

    /**
     * Passes {@code holder}'s permit to {@code next}, another thread of this JVM waiting for one, with a lease of
     * {@code leaseMillis}, in one atomic step (the permit is never free in between), but only while no other
     * instance waits for the semaphore: then it returns the permit (waking those waiters) and refuses
     * {@code next}, which contends like them, so that one busy JVM cannot keep permits from the others. When
     * {@code holder}'s permit had expired, it is returned as by {@link #release} and {@code next} is refused.
     * With fewer than the held permits allowed ({@code permits} lowered), the permit is returned and {@code next}
     * refused.
     *
     * <p>Stores that cannot tell whether other instances wait (the in-process store) return and refuse
     * ({@link #releaseAndRefuse}), so {@code next} contends as after any return. Not a default method on
     * purpose: a decorating store that forgot to pass it on would silently lose the one-call hand-over.
     *
     * @return whether {@code holder}'s permit was still held (as {@link #release} answers), and {@code next}'s
     *         attempt
     * @throws RuntimeException when the store cannot be reached
     */
    LockStore.Handover handOver(String key, String holder, String next, int permits, long leaseMillis);

    /** {@link #handOver} in two steps: return {@code holder}'s permit (waking waiters) and let the next thread contend. */
    static LockStore.Handover releaseAndRefuse(SemaphoreStore store, String key, String holder) {
        return new LockStore.Handover(store.release(key, holder), Attempt.refused(0));
    }

    /**
     * Sets the permit's remaining lease to {@code leaseMillis} if it has not expired.
     *
     * @return false when the permit had expired
     */
    boolean extend(String key, String permitId, long leaseMillis);

    @Override
    default void close() {
    }
}
