package dev.sluice.internal.metrics;

/**
 * One rate-limit policy of one application in JMX: {@code dev.sluice:type=RateLimit,app=<app>,name=<policy>}.
 * Counts run from the application's start. Implementations are thread-safe.
 */
public interface RateLimitMXBean {

    /** Requests the policy admitted and charged. */
    long getAllowed();

    /** Requests the policy refused (HTTP 429). */
    long getDenied();

    /** Requests under this policy the store could not decide (Redis unreachable or timed out). */
    long getRedisErrors();

    /** Requests admitted unchecked while Redis was unreachable ({@code sluice.on-redis-failure=allow}). */
    long getFailOpen();

    /** Of the refused requests, those the node refused from its deny cache without asking Redis. */
    long getDeniedLocally();

    /** Whether the application's circuit breaker currently skips Redis (one breaker per application). */
    boolean isBreakerOpen();
}
