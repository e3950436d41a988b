package dev.sluice.internal.metrics;

/**
 * The counters of one rate-limit policy (or of every unregistered name together, under
 * {@link SluiceMetrics#OTHER}). Thread-safe.
 */
public final class PolicyMetrics {

    private final String name;
    private final RedisStatus status;
    final Counter allowed = new Counter();
    final Counter denied = new Counter();
    final Counter redisErrors = new Counter();
    final Counter failOpen = new Counter();
    final Counter deniedLocally = new Counter();
    final Counter exempt = new Counter();

    PolicyMetrics(String name, RedisStatus status) {
        this.name = name;
        this.status = status;
    }

    public String name() {
        return name;
    }

    /** The policy admitted a request and charged it. */
    public void allowed() {
        allowed.increment();
    }

    /** The policy refused a request (429). */
    public void denied() {
        denied.increment();
    }

    /** The store could not be asked about a request under this policy. */
    public void redisError() {
        redisErrors.increment();
    }

    /** A request was admitted unchecked because the store was unreachable ({@code sluice.on-redis-failure=allow}). */
    public void failedOpen() {
        failOpen.increment();
    }

    /**
     * The node refused a request from its deny cache, without asking Redis (also counted in
     * {@link #denied()}).
     */
    public void deniedLocally() {
        deniedLocally.increment();
        denied.increment();
    }

    /** The policy let a request through untouched because its client is exempt ({@code exempt}). */
    public void exempt() {
        exempt.increment();
    }

    /** The application's Redis status, whose breaker every policy shares. */
    public RedisStatus status() {
        return status;
    }

    public long allowedCount() {
        return allowed.count();
    }

    public long deniedCount() {
        return denied.count();
    }

    public long redisErrorCount() {
        return redisErrors.count();
    }

    public long failOpenCount() {
        return failOpen.count();
    }

    public long deniedLocallyCount() {
        return deniedLocally.count();
    }

    public long exemptCount() {
        return exempt.count();
    }
}
