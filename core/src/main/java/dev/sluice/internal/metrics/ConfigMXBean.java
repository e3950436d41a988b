package dev.sluice.internal.metrics;

/**
 * The configuration of one application in JMX: {@code dev.sluice:type=Config,app=<app>}. Counts run from the
 * application's start. Implementations are thread-safe.
 */
public interface ConfigMXBean {

    /**
     * Reads the policy keys ({@code sluice.limit.<policy>.*}) again and applies them, as
     * {@code sluice.config.refresh} does periodically.
     *
     * @return what changed, one line per servlet filter or JAX-RS application, or why nothing did
     */
    String reload();

    /** Reloads that changed at least one policy. */
    long getAppliedReloads();

    /** Reloads refused because a value was bad; the policies stayed as they were. */
    long getRefusedReloads();
}
