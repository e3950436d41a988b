package dev.sluice.internal.metrics;

/**
 * The store of one application in JMX: {@code dev.sluice:type=Redis,app=<app>}. Implementations are
 * thread-safe.
 */
public interface RedisMXBean {

    /** {@code STANDALONE}, {@code SENTINEL}, {@code CLUSTER} or {@code IN_PROCESS}. */
    String getMode();

    /** Whether the last store call got an answer. */
    boolean isReachable();

    /** Whether the rate-limit circuit breaker currently skips Redis. */
    boolean isBreakerOpen();
}
