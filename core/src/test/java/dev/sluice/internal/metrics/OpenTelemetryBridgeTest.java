package dev.sluice.internal.metrics;

import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.runtime.SluiceRuntime;
import dev.sluice.test.LogCapture;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The OpenTelemetry bridge over a real OpenTelemetry SDK ({@link SdkMeterProvider} with an in-memory reader),
 * handed to Sluice as a MicroProfile Telemetry server's CDI container hands its {@code OpenTelemetry} bean, in an
 * application that has neither MicroProfile Metrics nor Micrometer (MicroProfile 7: Telemetry only).
 */
class OpenTelemetryBridgeTest {

    private static final String APP = "otel-app";

    @RegisterExtension
    final LogCapture logs = new LogCapture();

    private final InMemoryMetricReader reader = InMemoryMetricReader.create();
    private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
            .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(reader).build()).build();
    private final ClassLoader telemetryOnly = new HidingLoader("org.eclipse.microprofile.metrics.", "io.micrometer.");
    private SluiceConfig config;
    private PolicyConfig api;
    private SluiceRuntime runtime;

    @BeforeEach
    void start() {
        config = SluiceConfigLoader.load(ConfigSources.of(Map.of(
                "sluice.limit.api.rate", "2/1m", "sluice.lock.job.lease", "10s", "sluice.semaphore.pdf.permits", "2")));
        api = config.policy("api").orElseThrow();
        runtime = SluiceRuntime.start(config, APP, telemetryOnly);
    }

    @AfterEach
    void stop() {
        runtime.close();
        sdk.close();
    }

    private void attach(Object openTelemetry) {
        MetricsBridges.withBeans(runtime.metrics(), telemetryOnly, type -> type == OpenTelemetry.class
                ? Optional.of(openTelemetry) : Optional.empty());
    }

    @Test
    void rateLimitDecisionsAreOneCounterWithTheResultAsAnAttribute() {
        runtime.rateLimits().decide(api, "k", 1);            // before the bridge: the counters read Sluice's counts
        attach(sdk);
        runtime.rateLimits().decide(api, "k", 1);
        runtime.rateLimits().decide(api, "k", 1);            // the third of 2/1m: refused
        runtime.metrics().policy("api").wouldDeny();
        runtime.metrics().policy("api").exempt();
        runtime.metrics().policy("api").chargedAfterResponse();

        Collection<MetricData> metrics = reader.collectAllMetrics();
        MetricData requests = metric(metrics, "sluice.ratelimit.requests");
        assertThat(requests.getUnit()).isEqualTo("{request}");
        assertThat(requests.getInstrumentationScopeInfo().getName()).isEqualTo("dev.sluice");
        assertThat(requests.getLongSumData().isMonotonic()).isTrue();
        assertThat(count(requests, policy("api").put("sluice.ratelimit.result", "allowed").build())).isEqualTo(2);
        assertThat(count(requests, policy("api").put("sluice.ratelimit.result", "denied").build())).isEqualTo(1);
        assertThat(count(requests, policy("api").put("sluice.ratelimit.result", "would_deny").build())).isEqualTo(1);
        assertThat(count(requests, policy("api").put("sluice.ratelimit.result", "exempt").build())).isEqualTo(1);
        assertThat(count(metric(metrics, "sluice.ratelimit.charged_after_response"), policy("api").build())).isEqualTo(1);
        assertThat(count(metric(metrics, "sluice.ratelimit.redis.errors"), policy("api").build())).isZero();
        assertThat(count(metric(metrics, "sluice.ratelimit.fail_open"), policy("api").build())).isZero();
        assertThat(count(metric(metrics, "sluice.ratelimit.denied_locally"), policy("api").build())).isZero();
        assertThat(runtime.metrics().externalExporter()).startsWith("OpenTelemetry");
    }

    @Test
    void waitsAndHoldsAreHistogramsInSecondsPerLockAndSemaphoreName() {
        attach(sdk);
        runtime.locks().lock("job").acquire(Duration.ofSeconds(5), Duration.ZERO).close();
        runtime.locks().lock("job").acquire(Duration.ofSeconds(5), Duration.ZERO).close();
        try (var held = runtime.locks().lock("job").acquire(Duration.ofSeconds(5), Duration.ZERO)) {
            // Another thread: this one's acquisition would be reentrant, no acquisition at all.
            assertThat(CompletableFuture.supplyAsync(() -> runtime.locks().lock("job").tryAcquire(Duration.ofSeconds(5)))
                    .join()).isEmpty();
        }
        runtime.locks().semaphore("pdf", 2).acquire(Duration.ofSeconds(5), Duration.ZERO).close();

        Collection<MetricData> metrics = reader.collectAllMetrics();
        Attributes job = Attributes.of(OpenTelemetryExporter.APP, APP, AttributeKey.stringKey("sluice.lock.name"), "job");
        MetricData waits = metric(metrics, "sluice.lock.wait_time");
        assertThat(waits.getUnit()).isEqualTo("s");
        HistogramPointData wait = histogram(waits, job);
        assertThat(wait.getCount()).isEqualTo(3);
        assertThat(wait.getSum()).as("three uncontended waits on one Redis-less node, in seconds").isBetween(0.0, 5.0);
        assertThat(wait.getBoundaries()).isEqualTo(OpenTelemetryExporter.BUCKETS);
        HistogramPointData hold = histogram(metric(metrics, "sluice.lock.hold_time"), job);
        assertThat(hold.getCount()).isEqualTo(3);
        assertThat(hold.getMax()).isPositive().isLessThanOrEqualTo(hold.getSum());
        assertThat(count(metric(metrics, "sluice.lock.timeouts"), job)).isEqualTo(1);
        assertThat(count(metric(metrics, "sluice.lock.leases_lost"), job)).isZero();
        Attributes pdf = Attributes.of(OpenTelemetryExporter.APP, APP,
                AttributeKey.stringKey("sluice.semaphore.name"), "pdf");
        assertThat(histogram(metric(metrics, "sluice.semaphore.wait_time"), pdf).getCount()).isEqualTo(1);
        assertThat(histogram(metric(metrics, "sluice.semaphore.hold_time"), pdf).getCount()).isEqualTo(1);
    }

    @Test
    void redisGaugesAndReloadsCarryTheApplication() {
        attach(sdk);
        runtime.metrics().reloads().refused();
        runtime.metrics().reloads().refused();
        runtime.metrics().reloads().applied();
        runtime.metrics().redis().breakerOpen(true);

        Collection<MetricData> metrics = reader.collectAllMetrics();
        Attributes app = Attributes.of(OpenTelemetryExporter.APP, APP);
        assertThat(gauge(metric(metrics, "sluice.redis.reachable"), app)).isEqualTo(1);
        assertThat(gauge(metric(metrics, "sluice.breaker.open"), app)).isEqualTo(1);
        MetricData reloads = metric(metrics, "sluice.config.reloads");
        assertThat(count(reloads, app.toBuilder().put("sluice.config.reload.result", "refused").build())).isEqualTo(2);
        assertThat(count(reloads, app.toBuilder().put("sluice.config.reload.result", "applied").build())).isEqualTo(1);
    }

    @Test
    void closingTheRuntimeStopsEveryCallbackAndRecording() {
        attach(sdk);
        runtime.rateLimits().decide(api, "k", 1);
        assertThat(names(reader.collectAllMetrics())).contains("sluice.ratelimit.requests", "sluice.redis.reachable");

        runtime.close();
        runtime.locks().lock("job").acquire(Duration.ofSeconds(5), Duration.ZERO).close();

        assertThat(names(reader.collectAllMetrics())).doesNotContain("sluice.ratelimit.requests",
                "sluice.redis.reachable", "sluice.lock.wait_time", "sluice.lock.timeouts");
    }

    /** MicroProfile Telemetry disables the SDK unless {@code otel.sdk.disabled=false}: say so, keep JMX. */
    @Test
    void aDisabledSdkIsReportedInOneInfoLineAndLeavesTheMetricsInJmx() {
        attach(OpenTelemetry.noop());

        assertThat(runtime.metrics().externalExporter()).isEmpty();
        assertThat(logs.records(Level.INFO, "dev.sluice").stream().map(logs::text)
                .filter(t -> t.contains("OpenTelemetry"))).singleElement().asString()
                .contains(APP).contains("otel.sdk.disabled=false").contains("JMX");
    }

    /** An SDK without a metric reader ({@code otel.metrics.exporter=none}) records nothing either. */
    @Test
    void anSdkWithoutAMetricsExporterIsTreatedAsDisabled() {
        try (OpenTelemetrySdk tracesOnly = OpenTelemetrySdk.builder().build()) {
            attach(tracesOnly);
        }

        assertThat(runtime.metrics().externalExporter()).isEmpty();
        assertThat(logs.records(Level.INFO, "dev.sluice").stream().map(logs::text)
                .filter(t -> t.contains("records no metrics"))).hasSize(1);
    }

    /** An application with a Micrometer registry bean as well keeps it: one registry at a time, Micrometer first. */
    @Test
    void aMicrometerRegistryBeanIsPreferred() {
        ClassLoader withMicrometer = new HidingLoader("org.eclipse.microprofile.metrics.");
        SimpleMeterRegistry micrometer = new SimpleMeterRegistry();
        MetricsBridges.withBeans(runtime.metrics(), withMicrometer, type -> Optional.of(
                type == OpenTelemetry.class ? sdk : micrometer));

        assertThat(runtime.metrics().externalExporter()).startsWith("Micrometer");
        assertThat(names(reader.collectAllMetrics())).noneMatch(n -> n.startsWith("sluice."));
    }

    /** Without the API (no MicroProfile Telemetry on the server) its bean is not even asked for. */
    @Test
    void anApplicationWithoutTheApiIsNeverAskedForIt() {
        List<Class<?>> asked = new ArrayList<>();
        MetricsBridges.withBeans(runtime.metrics(), new HidingLoader("org.eclipse.microprofile.metrics.",
                "io.micrometer.", "io.opentelemetry."), type -> {
                    asked.add(type);
                    return Optional.empty();
                });

        assertThat(asked).isEmpty();
        assertThat(runtime.metrics().externalExporter()).isEmpty();
    }

    private static io.opentelemetry.api.common.AttributesBuilder policy(String name) {
        return Attributes.builder().put("sluice.app", APP).put("sluice.ratelimit.policy", name);
    }

    private static List<String> names(Collection<MetricData> metrics) {
        return metrics.stream().map(MetricData::getName).toList();
    }

    private static MetricData metric(Collection<MetricData> metrics, String name) {
        return metrics.stream().filter(m -> m.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError(name + " not exported; exported: " + names(metrics)));
    }

    private static long count(MetricData metric, Attributes attributes) {
        return point(metric.getLongSumData().getPoints(), attributes, metric).getValue();
    }

    private static long gauge(MetricData metric, Attributes attributes) {
        return point(metric.getLongGaugeData().getPoints(), attributes, metric).getValue();
    }

    private static HistogramPointData histogram(MetricData metric, Attributes attributes) {
        return metric.getHistogramData().getPoints().stream().filter(p -> p.getAttributes().equals(attributes))
                .findFirst().orElseThrow(() -> new AssertionError(attributes + " not in " + metric));
    }

    private static LongPointData point(Collection<LongPointData> points, Attributes attributes, MetricData metric) {
        return points.stream().filter(p -> p.getAttributes().equals(attributes)).findFirst()
                .orElseThrow(() -> new AssertionError(attributes + " not in " + metric));
    }

    /** An application class loader that lacks some libraries. */
    private static final class HidingLoader extends ClassLoader {
        private final String[] hidden;

        HidingLoader(String... hidden) {
            super(OpenTelemetryBridgeTest.class.getClassLoader());
            this.hidden = hidden;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            for (String prefix : hidden) {
                if (name.startsWith(prefix)) {
                    throw new ClassNotFoundException(name + " is not in this application");
                }
            }
            return super.loadClass(name, resolve);
        }
    }
}
