package dev.sluice.internal.metrics;

/**
 * Publishes an application's metrics somewhere (JMX, MicroProfile Metrics, Micrometer, OpenTelemetry). Told about each
 * name once, when it is registered (or, for an exporter added later, when it is added); closing it removes
 * everything it published, so that nothing in a server-wide registry keeps the application's class loader
 * alive after undeploy.
 *
 * <p>Implementations are called under the {@link SluiceMetrics}' lock, one call at a time.
 */
interface MetricsExporter extends AutoCloseable {

    /** The application-wide gauges (Redis reachable, breaker open). */
    void runtime(SluiceMetrics metrics);

    void policy(PolicyMetrics policy);

    void guard(GuardMetrics guard);

    /** Removes everything published; never throws. */
    @Override
    void close();
}
