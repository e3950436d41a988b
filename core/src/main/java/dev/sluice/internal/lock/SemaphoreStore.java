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
     * one atomic step.
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
     * Sets the permit's remaining lease to {@code leaseMillis} if it has not expired.
     *
     * @return false when the permit had expired
     */
    boolean extend(String key, String permitId, long leaseMillis);

    @Override
    default void close() {
    }
}
