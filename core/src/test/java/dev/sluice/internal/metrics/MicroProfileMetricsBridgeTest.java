package dev.sluice.internal.metrics;

import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.runtime.SluiceRuntime;
import dev.sluice.test.LogCapture;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.smallrye.metrics.legacyapi.LegacyMetricRegistryAdapter;
import org.eclipse.microprofile.metrics.MetricID;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The MicroProfile Metrics bridge against SmallRye Metrics 5 (the MP Metrics implementation WildFly and Quarkus
 * use), over a Micrometer {@link SimpleMeterRegistry} so no Prometheus registry is needed. SmallRye's counters
 * count in Micrometer's global composite, to which a server adds its registry; the test adds the simple one
 * and reads counts there, where a server's {@code /metrics} reads them (SmallRye's own {@code getCount()}
 * reads the composite's first child, which depends on what other tests of this JVM left in it).
 */
class MicroProfileMetricsBridgeTest {

    /** One app id per test: SmallRye keeps meters in Micrometer's JVM-wide global registry, as in a server. */
    private static final AtomicInteger TESTS = new AtomicInteger();

    @RegisterExtension
    final LogCapture logs = new dev.sluice.test.LogCapture();

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

    /**
     * The MicroProfile Metrics API is there but no registry bean resolves (Payara 6 showed no Sluice metric and
     * no line saying why): one INFO line names the API and the reason, and says where the metrics are.
     */
    @Test
    void anApiWithoutARegistryBeanIsReportedInOneInfoLine() {
        MetricsBridges.withBeans(runtime.metrics(), getClass().getClassLoader(), type -> Optional.empty());

        List<String> lines = logs.records(Level.INFO, "dev.sluice").stream()
                .map(logs::text).filter(t -> t.contains("MetricRegistry")).toList();
        assertThat(lines).singleElement().asString()
                .contains(app).contains("MicroProfile Metrics").contains("no MetricRegistry bean").contains("JMX");
    }

    @Test
    void countsTimersAndGaugesReachTheApplicationRegistry() {
        runtime.rateLimits().decide(api, "k", 1);            // before the bridge: seeded
        attach();
        runtime.rateLimits().decide(api, "k", 1);
        runtime.rateLimits().decide(api, "k", 1);
        runtime.locks().lock("job").acquire(Duration.ofSeconds(5), Duration.ZERO).close();

        // Read where the server exposes them: the Micrometer registry behind SmallRye's MP registry.
        assertThat(backing.get("sluice.ratelimit.allowed").tags("app", app, "policy", "api").counter().count()).isEqualTo(2);
        assertThat(backing.get("sluice.ratelimit.denied").tags("app", app, "policy", "api").counter().count()).isEqualTo(1);
        assertThat(backing.get("sluice.ratelimit.fail.open").tags("app", app, "policy", "api").counter().count()).isZero();
        runtime.metrics().policy("api").wouldDeny();
        runtime.metrics().policy("api").chargedAfterResponse();
        runtime.metrics().policy("api").chargedAfterResponse();
        runtime.metrics().policy("api").exempt();
        assertThat(backing.get("sluice.ratelimit.would.deny").tags("app", app, "policy", "api").counter().count()).isEqualTo(1);
        assertThat(backing.get("sluice.ratelimit.charged.after.response").tags("app", app, "policy", "api").counter().count())
                .isEqualTo(2);
        assertThat(backing.get("sluice.ratelimit.exempt").tags("app", app, "policy", "api").counter().count()).isEqualTo(1);
        assertThat(backing.get("sluice.lock.wait").tags("app", app, "lock", SluiceMetrics.OTHER).timer().count()).isEqualTo(1);
        assertThat(backing.get("sluice.lock.hold").tags("app", app, "lock", SluiceMetrics.OTHER).timer().count()).isEqualTo(1);
        assertThat(registry.getMetricIDs()).extracting(MetricID::getName)
                .contains("sluice.ratelimit.allowed", "sluice.lock.wait", "sluice.lock.hold");
        assertThat(registry.getGauge(new MetricID("sluice.redis.reachable", new Tag("app", app))).getValue().intValue())
                .isEqualTo(1);
        runtime.metrics().redis().breakerOpen(true);
        assertThat(registry.getGauge(new MetricID("sluice.breaker.open", new Tag("app", app))).getValue().intValue())
                .isEqualTo(1);
    }

    @Test
    void configurationReloadsAreCountedPerApplication() {
        runtime.metrics().reloads().refused();           // before the bridge: seeded
        attach();
        runtime.metrics().reloads().refused();
        runtime.metrics().reloads().applied();

        assertThat(backing.get("sluice.config.reloads.refused").tags("app", app).counter().count()).isEqualTo(2);
        assertThat(backing.get("sluice.config.reloads.applied").tags("app", app).counter().count()).isEqualTo(1);
    }

    @Test
    void microProfileMetricsWinsOverMicrometerSoNothingIsReportedTwice() {
        attach();
        runtime.rateLimits().decide(api, "k", 1);

        assertThat(backing.get("sluice.ratelimit.allowed").tags("app", app, "policy", "api").counter().count()).isEqualTo(1);
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
}
