package dev.sluice.internal.metrics;

import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.runtime.SluiceRuntime;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.smallrye.metrics.legacyapi.LegacyMetricRegistryAdapter;
import org.eclipse.microprofile.metrics.MetricID;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The MicroProfile Metrics bridge against SmallRye Metrics 5 (the MP Metrics implementation WildFly and Quarkus
 * use), over a Micrometer {@link SimpleMeterRegistry} so no Prometheus registry is needed. SmallRye's counters
 * count in Micrometer's global composite, to which a server adds its registry; the test adds the simple one.
 */
class MicroProfileMetricsBridgeTest {

    /** One app id per test: SmallRye keeps meters in Micrometer's JVM-wide global registry, as in a server. */
    private static final AtomicInteger TESTS = new AtomicInteger();

    private final String app = "mp-bridge-" + TESTS.incrementAndGet();

    private final SimpleMeterRegistry backing = new SimpleMeterRegistry();
    private final MetricRegistry registry = new LegacyMetricRegistryAdapter(MetricRegistry.APPLICATION_SCOPE, backing);
    private final SimpleMeterRegistry micrometer = new SimpleMeterRegistry();
    private SluiceRuntime runtime;
    private PolicyConfig api;

    @BeforeEach
    void start() {
        // A fresh global registry, as a server starts with: other tests leave composite children behind.
        List.copyOf(Metrics.globalRegistry.getRegistries()).forEach(Metrics::removeRegistry);
        Metrics.globalRegistry.clear();
        Metrics.addRegistry(backing);
        SluiceConfig config = SluiceConfigLoader.load(ConfigSources.of(Map.of("sluice.limit.api.rate", "2/1m")));
        runtime = SluiceRuntime.start(config, app, null);
        api = config.policy("api").orElseThrow();
    }

    @AfterEach
    void stop() {
        runtime.close();
        Metrics.removeRegistry(backing);
    }

    private void attach() {
        MetricsBridges.withBeans(runtime.metrics(), getClass().getClassLoader(), type -> Optional.of(
                type.getName().equals(MetricsBridges.MP_METRIC_REGISTRY) ? registry : micrometer));
    }

    @Test
    void countsTimersAndGaugesReachTheApplicationRegistry() {
        runtime.rateLimits().decide(api, "k", 1);            // before the bridge: seeded
        attach();
        runtime.rateLimits().decide(api, "k", 1);
        runtime.rateLimits().decide(api, "k", 1);
        runtime.locks().lock("job").acquire(Duration.ofSeconds(5), Duration.ZERO).close();

        assertThat(registry.getCounter(id("sluice.ratelimit.allowed", "policy", "api")).getCount()).isEqualTo(2);
        assertThat(registry.getCounter(id("sluice.ratelimit.denied", "policy", "api")).getCount()).isEqualTo(1);
        assertThat(registry.getCounter(id("sluice.ratelimit.fail.open", "policy", "api")).getCount()).isZero();
        assertThat(registry.getTimer(id("sluice.lock.wait", "lock", SluiceMetrics.OTHER)).getCount()).isEqualTo(1);
        assertThat(registry.getTimer(id("sluice.lock.hold", "lock", SluiceMetrics.OTHER)).getCount()).isEqualTo(1);
        assertThat(registry.getGauge(new MetricID("sluice.redis.reachable", new Tag("app", app))).getValue().intValue())
                .isEqualTo(1);
        runtime.metrics().redis().breaker(true);
        assertThat(registry.getGauge(new MetricID("sluice.breaker.open", new Tag("app", app))).getValue().intValue())
                .isEqualTo(1);
    }

    @Test
    void microProfileMetricsWinsOverMicrometerSoNothingIsReportedTwice() {
        attach();
        runtime.rateLimits().decide(api, "k", 1);

        assertThat(registry.getCounter(id("sluice.ratelimit.allowed", "policy", "api")).getCount()).isEqualTo(1);
        assertThat(micrometer.getMeters()).isEmpty();
        assertThat(runtime.metrics().externalExporter()).isEqualTo("MicroProfile Metrics");
    }

    @Test
    void closingTheRuntimeRemovesEveryMetricAndStopsMirroring() {
        attach();
        runtime.rateLimits().decide(api, "k", 1);
        assertThat(registry.getMetricIDs()).anyMatch(id -> id.getName().startsWith("sluice."));
        PolicyMetrics counters = runtime.metrics().policy("api");

        runtime.close();
        counters.allowed();

        assertThat(registry.getMetricIDs()).noneMatch(id -> id.getName().startsWith("sluice."));
        assertThat(backing.getMeters()).noneMatch(m -> m.getId().getName().startsWith("sluice."));
    }

    private MetricID id(String name, String tag, String value) {
        return new MetricID(name, new Tag("app", app), new Tag(tag, value));
    }
}
