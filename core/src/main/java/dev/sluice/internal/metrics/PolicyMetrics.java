package dev.sluice.internal.metrics;

/**
 * The counters of one rate-limit policy (or of every unregistered name together, under
 * {@link SluiceMetrics#OTHER}). Each request the policy applies to counts at most once before it runs, in
 * {@link #allowed()}, {@link #denied()}, {@link #wouldDeny()}, {@link #exempt()} or the Redis counters, and
 * once more after its response when the policy charges it then ({@link #chargedAfterResponse()}).
 * The meaning of each, for users, is in {@code docs/observability.md}. Thread-safe.
 */
public final class PolicyMetrics {

    private final String name;
    private final RedisStatus status;
    final Counter allowed = new Counter();
    final Counter denied = new Counter();
    final Counter redisErrors = new Counter();
    final Counter failOpen = new Counter();
    final Counter deniedLocally = new Counter();
    final Counter allowedLocally = new Counter();
    final Counter wouldDeny = new Counter();
    final Counter chargedAfterResponse = new Counter();
    final Counter exempt = new Counter();

    private final java.util.function.UnaryOperator<String> reset;

    PolicyMetrics(String name, RedisStatus status) {
        this(name, status, key -> "nothing to reset");
    }

    /** @param reset gives a key of this policy its burst back on every node, answering what it did */
    PolicyMetrics(String name, RedisStatus status, java.util.function.UnaryOperator<String> reset) {
        this.name = name;
        this.status = status;
        this.reset = reset;
    }

    /** Counts what the rate-limit engine reported of one request under this policy. */
    void count(RateLimitEvents.Outcome outcome) {
        switch (outcome) {
            case ALLOWED -> allowed();
            case ALLOWED_LOCALLY -> allowedLocally();
            case DENIED -> denied();
            case DENIED_LOCALLY -> deniedLocally();
            case WOULD_DENY -> wouldDeny();
            case CHARGED_AFTER_RESPONSE -> chargedAfterResponse();
            case EXEMPT -> exempt();
            case REDIS_ERROR -> redisError();
            case FAILED_OPEN -> failedOpen();
        }
    }

    /** Gives {@code key} its whole burst back on every node (the JMX operation {@code reset(key)}). */
    public String reset(String key) {
        return reset.apply(key);
    }

    public String name() {
        return name;
    }

    /**
     * The policy admitted a request that went ahead: charged at once when the policy counts every request, only
     * checked when it counts some response statuses (then see {@link #chargedAfterResponse()}).
     */
    public void allowed() {
        allowed.increment();
    }

    /**
     * The policy admitted a request from the tokens the node holds for its key ({@code local-budget}), without asking
     * Redis (also counted in {@link #allowed()}).
     */
    public void allowedLocally() {
        allowedLocally.increment();
        allowed.increment();
    }

    /** The policy refused a request (429); never counted by a shadowed policy. */
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

    /**
     * A shadowed policy ({@code mode=shadow}) would have refused a request, which went ahead (unless an enforced
     * policy refused it).
     */
    public void wouldDeny() {
        wouldDeny.increment();
    }

    /** The policy was charged after a response whose status it counts ({@code count=<statuses>}). */
    public void chargedAfterResponse() {
        chargedAfterResponse.increment();
    }

    /** The policy neither checked nor charged a request because its client is exempt ({@code exempt=}). */
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

    public long allowedLocallyCount() {
        return allowedLocally.count();
    }

    public long deniedLocallyCount() {
        return deniedLocally.count();
    }

    public long wouldDenyCount() {
        return wouldDeny.count();
    }

    public long chargedAfterResponseCount() {
        return chargedAfterResponse.count();
    }

    public long exemptCount() {
        return exempt.count();
    }
}
