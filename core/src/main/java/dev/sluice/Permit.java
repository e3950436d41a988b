package dev.sluice;

/**
 * One held permit of a {@link DistributedSemaphore}; its lease is renewed in the background until it is
 * closed. Thread-safe.
 */
public interface Permit extends AutoCloseable {

    /** {@return the semaphore name} */
    String name();

    /** {@return whether the permit's lease is still held, as last confirmed by the watchdog} */
    boolean isHeld();

    /**
     * Returns the permit; closing twice has no further effect. When a JTA transaction runs on the closing thread,
     * the permit is returned once that transaction has committed or rolled back (renewed until then; a lease
     * found lost before the commit rolls the transaction back), so that no more transactions than permits are
     * uncommitted at once.
     *
     * @throws LockLostException when the lease had already expired and the permit was reclaimed
     */
    @Override
    void close();
}
