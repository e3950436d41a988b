package dev.sluice.internal.metrics;

import java.lang.System.Logger.Level;
import java.util.Optional;
import java.util.function.Function;

/**
 * Finds the metrics library an application has, if any, and publishes its Sluice metrics there too (JMX is
 * always on). One external registry at a time, first match wins:
 * <ol>
 *   <li>MicroProfile Metrics: the application's {@code MetricRegistry} bean, found through CDI;</li>
 *   <li>Micrometer: a {@code MeterRegistry} bean found through CDI (WildFly's Micrometer subsystem, an
 *       application's own producer);</li>
 *   <li>OpenTelemetry (MicroProfile Telemetry 2): the application's {@code OpenTelemetry} bean, found through
 *       CDI, when its SDK is enabled (MicroProfile Telemetry disables it unless {@code otel.sdk.disabled=false});
 *       </li>
 *   <li>Micrometer's {@code Metrics.globalRegistry}, when the application has Micrometer but not the
 *       MicroProfile Metrics API (where the API is present the MP registry is preferred, and SmallRye
 *       Metrics 5 would show the same meters twice through Micrometer).</li>
 * </ol>
 * The last applies when the runtime starts; the first three when the CDI extension has a bean manager, and
 * replace the last. {@code GlobalOpenTelemetry} is never asked: MicroProfile Telemetry servers need not set it
 * (WildFly builds one SDK per deployment), and asking it before anything set it installs a no-op instance for
 * good, so that the application's own {@code GlobalOpenTelemetry.set} would then fail. A library counts as present only when the application's class loader and Sluice's
 * resolve its entry class to the same {@code Class}, so that an EAR whose {@code lib/} Sluice cannot see a
 * WAR's Micrometer is not mistaken for one that can. Neither library is a dependency of Sluice: the exporter
 * classes that name them are loaded only after this check. Stateless.
 */
public final class MetricsBridges {

    static final String MP_METRIC_REGISTRY = "org.eclipse.microprofile.metrics.MetricRegistry";
    static final String MICROMETER_REGISTRY = "io.micrometer.core.instrument.MeterRegistry";
    static final String OPEN_TELEMETRY = "io.opentelemetry.api.OpenTelemetry";

    private static final System.Logger LOG = System.getLogger("dev.sluice");

    private MetricsBridges() {
    }

    /** At runtime start: Micrometer's global registry when the application has Micrometer and not MP Metrics. */
    public static void atStart(SluiceMetrics metrics, ClassLoader application) {
        if (shared(MP_METRIC_REGISTRY, application).isPresent()) {
            return;
        }
        if (shared(MICROMETER_REGISTRY, application).isPresent()) {
            attach(metrics, () -> MicrometerExporter.global(metrics.app()));
        }
    }

    /**
     * With CDI: the application's MP Metrics registry, else a Micrometer registry bean, else an enabled
     * OpenTelemetry; nothing changes when none resolves.
     *
     * @param beans resolves a bean of the given type, empty when there is none or it is ambiguous
     */
    public static void withBeans(SluiceMetrics metrics, ClassLoader application, Function<Class<?>, Optional<Object>> beans) {
        Optional<Class<?>> mp = shared(MP_METRIC_REGISTRY, application);
        if (mp.isPresent()) {
            Optional<Object> registry = beans.apply(mp.get());
            if (registry.isPresent()) {
                attach(metrics, () -> MicroProfileMetricsExporter.over(registry.get(), metrics.app()));
                return;
            }
        }
        Optional<Class<?>> micrometer = shared(MICROMETER_REGISTRY, application);
        if (micrometer.isPresent()) {
            Optional<Object> registry = beans.apply(micrometer.get());
            if (registry.isPresent()) {
                attach(metrics, () -> MicrometerExporter.over(registry.get(), metrics.app()));
                return;
            }
        }
        Optional<Class<?>> openTelemetry = shared(OPEN_TELEMETRY, application);
        if (openTelemetry.isPresent()) {
            Optional<Object> api = beans.apply(openTelemetry.get());
            if (api.isPresent() && openTelemetry(metrics, api.get())) {
                return;
            }
        }
        if (mp.isPresent()) {
            // The API is there and nothing carries the metrics (with MP Metrics present, atStart attached no global
            // Micrometer registry either): a user would look in /metrics, so say why they are not there.
            LOG.log(Level.INFO, "Sluice (app " + metrics.app() + "): MicroProfile Metrics is present, but no"
                    + " MetricRegistry bean with the default qualifier resolves from Sluice's bean manager (none, or"
                    + " more than one); Sluice's metrics remain in JMX");
        }
    }

    /** Attaches the OpenTelemetry exporter unless the SDK records nothing; whether it attached one. */
    private static boolean openTelemetry(SluiceMetrics metrics, Object api) {
        Optional<MetricsExporter> exporter;
        try {
            exporter = OpenTelemetryExporter.over(api, metrics.app());
        } catch (LinkageError | RuntimeException e) {
            LOG.log(Level.INFO, "Sluice (app " + metrics.app() + "): the application's OpenTelemetry API lacks what"
                    + " Sluice uses (" + e + "; OpenTelemetry 1.39 or later is needed); metrics remain in JMX");
            return false;
        }
        if (exporter.isEmpty()) {
            if (metrics.externalExporter().isEmpty()) {
                LOG.log(Level.INFO, "Sluice (app " + metrics.app() + "): OpenTelemetry is present but records no"
                        + " metrics: its SDK is disabled (MicroProfile Telemetry's default; set otel.sdk.disabled=false"
                        + " to enable it) or has no metrics exporter; Sluice's metrics remain in JMX");
            }
            return false;
        }
        attach(metrics, exporter::get);
        return true;
    }

    /** The class when both loaders resolve {@code name} to the same one. */
    static Optional<Class<?>> shared(String name, ClassLoader application) {
        try {
            Class<?> ours = Class.forName(name, false, MetricsBridges.class.getClassLoader());
            Class<?> theirs = application == null ? ours : Class.forName(name, false, application);
            return ours == theirs ? Optional.of(ours) : Optional.empty();
        } catch (ClassNotFoundException | LinkageError e) {
            return Optional.empty();
        }
    }

    private interface ExporterFactory {
        MetricsExporter create();
    }

    private static void attach(SluiceMetrics metrics, ExporterFactory factory) {
        try {
            MetricsExporter exporter = factory.create();
            metrics.exportExternally(exporter);
            LOG.log(Level.DEBUG, "Sluice (app " + metrics.app() + "): metrics published through " + exporter);
        } catch (LinkageError e) {
            // An older metrics API than Sluice calls (MicroProfile Metrics before 3.0 on some EE 8 servers): a
            // known limit of the server, not a fault, so one line without a trace.
            LOG.log(Level.INFO, "Sluice (app " + metrics.app() + "): the application's metrics API lacks what Sluice"
                    + " uses (" + e + "; MicroProfile Metrics needs 3.0 or later);"
                    + " metrics remain in JMX");
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Sluice (app " + metrics.app() + "): could not publish metrics to the"
                    + " application's metrics registry; they remain in JMX", e);
        }
    }
}
