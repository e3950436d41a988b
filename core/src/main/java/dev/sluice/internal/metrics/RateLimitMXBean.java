package dev.sluice.internal.metrics;

/**
 * One rate-limit policy of one application in JMX: {@code dev.sluice:type=RateLimit,app=<app>,name=<policy>}.
 * Counts run from the application's start. Implementations are thread-safe.
 */
public interface RateLimitMXBean {

    /**
     * Requests the policy admitted that went ahead: charged at once, or for a policy that counts only some
     * response statuses ({@code count=}), checked (see {@link #getChargedAfterResponse()}).
     */
    long getAllowed();

    /** Requests the policy refused (HTTP 429). */
    long getDenied();

    /** Requests a shadowed policy ({@code mode=shadow}) would have refused; they were not refused by it. */
    long getWouldDeny();

    /** Responses whose status the policy counts ({@code count=}), charged after the response. */
    long getChargedAfterResponse();

    /** Requests the policy neither checked nor charged because the client is exempt ({@code exempt=}). */
    long getExempt();

    /** Requests under this policy the store could not decide (Redis unreachable or timed out). */
    long getRedisErrors();

    /** Requests admitted unchecked while Redis was unreachable ({@code sluice.on-redis-failure=allow}). */
    long getFailOpen();

    /** Of the refused requests, those the node refused from its deny cache without asking Redis. */
    long getDeniedLocally();

    /** Of the admitted requests, those the node admitted from its local budget for the key without asking Redis. */
    long getAllowedLocally();

    /**
     * Gives one client its whole burst back on every node: deletes the policy's bucket for {@code key} and makes
     * every node of the application forget its cached refusal of it at once.
     *
     * @param key the key as the policy derives it from requests: {@code 203.0.113.7} for {@code key=ip},
     *            {@code user:alice} for {@code key=principal}, {@code h:<value>} for {@code key=header:<name>}
     * @return what was done
     */
    String reset(String key);

    /** Whether the application's circuit breaker currently skips Redis (one breaker per application). */
    boolean isBreakerOpen();
}
