package dev.sluice.internal.metrics;

/**
 * The timers and counters of one lock name or semaphore name (or of every unregistered one together, under
 * {@link SluiceMetrics#OTHER}): how long acquisitions waited and holders held, and how often acquisitions
 * timed out, leases were lost, the watchdog renewed a lease, and the store could not be reached.
 *
 * <p>A reentrant acquisition of a lock the thread already holds is not an acquisition here: it neither
 * waits nor holds anything new. Thread-safe.
 */
public final class GuardMetrics {

    private final Kind kind;
    private final String name;
    final Timer waits = new Timer();
    final Timer holds = new Timer();
    final Counter timeouts = new Counter();
    final Counter leasesLost = new Counter();
    final Counter renewals = new Counter();
    final Counter redisErrors = new Counter();

    GuardMetrics(Kind kind, String name) {
        this.kind = kind;
        this.name = name;
    }

    public Kind kind() {
        return kind;
    }

    public String name() {
        return name;
    }

    /** Acquired after waiting {@code nanos} (from the call to the store's grant). */
    public void acquired(long nanos) {
        waits.record(nanos);
    }

    /** Released (or given back) after holding for {@code nanos}. */
    public void released(long nanos) {
        holds.record(nanos);
    }

    /** Gave up after the maximum wait. */
    public void timedOut() {
        timeouts.increment();
    }

    /** A lease was found lost: expired or taken over while held. Counted once per hold. */
    public void leaseLost() {
        leasesLost.increment();
    }

    /** The watchdog renewed a lease. */
    public void renewed() {
        renewals.increment();
    }

    /** An acquisition failed because the store could not be reached (the caller failed closed). */
    public void redisError() {
        redisErrors.increment();
    }

    public Timer waits() {
        return waits;
    }

    public Timer holds() {
        return holds;
    }

    public long timeoutCount() {
        return timeouts.count();
    }

    public long leasesLostCount() {
        return leasesLost.count();
    }

    public long renewalCount() {
        return renewals.count();
    }

    public long redisErrorCount() {
        return redisErrors.count();
    }
}
