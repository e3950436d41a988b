package dev.sluice.internal.metrics;

import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.runtime.SluiceRuntime;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Micrometer bridge on a real {@link SimpleMeterRegistry} behind {@code Metrics.globalRegistry}, chosen
 * by what the application's class loader can see.
 */
class MicrometerBridgeTest {

    /** An application class loader without the MicroProfile Metrics API (or without Micrometer as well). */
    private static final class Without extends ClassLoader {
        private final String[] hidden;

        Without(String... hidden) {
            super(MicrometerBridgeTest.class.getClassLoader());
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

    private static final String MP_METRICS = "org.eclipse.microprofile.metrics.";

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private SluiceConfig config;
    private SluiceRuntime runtime;

    @BeforeEach
    void addRegistry() {
        Metrics.addRegistry(registry);
        config = SluiceConfigLoader.load(ConfigSources.of(Map.of(
                "sluice.limit.api.rate", "2/1m", "sluice.lock.job.lease", "10s")));
    }

    @AfterEach
    void removeRegistry() {
        if (runtime != null) {
            runtime.close();
        }
        Metrics.removeRegistry(registry);
    }

    @Test
    void anApplicationWithMicrometerAndWithoutMpMetricsGetsTheGlobalRegistry() {
        runtime = SluiceRuntime.start(config, "micrometer-app", new Without(MP_METRICS));
        PolicyConfig api = config.policy("api").orElseThrow();
        for (int i = 0; i < 3; i++) {
            runtime.rateLimits().decide(api, "k", 1);
        }
        runtime.locks().lock("job").acquire(Duration.ofSeconds(5), Duration.ZERO).close();
        runtime.locks().lock("job").acquire(Duration.ofSeconds(5), Duration.ZERO).close();

        assertThat(counter("sluice.ratelimit.allowed", "policy", "api").count()).isEqualTo(2);
        assertThat(counter("sluice.ratelimit.denied", "policy", "api").count()).isEqualTo(1);
        assertThat(counter("sluice.ratelimit.redis.errors", "policy", "api").count()).isZero();
        runtime.metrics().policy("api").wouldDeny();
        runtime.metrics().policy("api").chargedAfterResponse();
        runtime.metrics().policy("api").chargedAfterResponse();
        runtime.metrics().policy("api").exempt();
        assertThat(counter("sluice.ratelimit.would.deny", "policy", "api").count()).isEqualTo(1);
        assertThat(counter("sluice.ratelimit.charged.after.response", "policy", "api").count()).isEqualTo(2);
        assertThat(counter("sluice.ratelimit.exempt", "policy", "api").count()).isEqualTo(1);
        FunctionTimer waits = registry.get("sluice.lock.wait").tags("app", "micrometer-app", "lock", "job").functionTimer();
        FunctionTimer holds = registry.get("sluice.lock.hold").tags("app", "micrometer-app", "lock", "job").functionTimer();
        assertThat(waits.count()).isEqualTo(2);
        assertThat(holds.count()).isEqualTo(2);
        assertThat(holds.totalTime(TimeUnit.NANOSECONDS)).isPositive();
        assertThat(registry.get("sluice.lock.hold.max").tags("app", "micrometer-app", "lock", "job").timeGauge()
                .value(TimeUnit.NANOSECONDS)).isPositive().isLessThanOrEqualTo(holds.totalTime(TimeUnit.NANOSECONDS));
        assertThat(registry.get("sluice.redis.reachable").tags("app", "micrometer-app").gauge().value()).isEqualTo(1);
        assertThat(registry.get("sluice.breaker.open").tags("app", "micrometer-app").gauge().value()).isZero();
        runtime.metrics().redis().breakerOpen(true);
        assertThat(registry.get("sluice.breaker.open").tags("app", "micrometer-app").gauge().value()).isEqualTo(1);
    }

    @Test
    void configurationReloadsAreCountedPerApplication() {
        runtime = SluiceRuntime.start(config, "micrometer-app", new Without(MP_METRICS));
        runtime.metrics().reloads().refused();
        runtime.metrics().reloads().refused();
        runtime.metrics().reloads().applied();

        assertThat(registry.get("sluice.config.reloads.refused").tags("app", "micrometer-app").functionCounter().count())
                .isEqualTo(2);
        assertThat(registry.get("sluice.config.reloads.applied").tags("app", "micrometer-app").functionCounter().count())
                .isEqualTo(1);
    }

    @Test
    void closingTheRuntimeRemovesItsMetersFromTheGlobalRegistry() {
        runtime = SluiceRuntime.start(config, "micrometer-closed", new Without(MP_METRICS));
        assertThat(registry.getMeters()).anyMatch(m -> "micrometer-closed".equals(m.getId().getTag("app")));

        runtime.close();

        assertThat(registry.getMeters()).noneMatch(m -> "micrometer-closed".equals(m.getId().getTag("app")));
        assertThat(Metrics.globalRegistry.getMeters()).noneMatch(m -> "micrometer-closed".equals(m.getId().getTag("app")));
    }

    @Test
    void anApplicationWithMpMetricsLeavesItToTheCdiRegistry() {
        runtime = SluiceRuntime.start(config, "mp-app", getClass().getClassLoader());
        assertThat(registry.getMeters()).noneMatch(m -> "mp-app".equals(m.getId().getTag("app")));
        assertThat(runtime.metrics().externalExporter()).isEmpty();
    }

    @Test
    void anApplicationWithoutMicrometerGetsJmxOnly() {
        runtime = SluiceRuntime.start(config, "plain-app", new Without(MP_METRICS, "io.micrometer."));
        assertThat(registry.getMeters()).noneMatch(m -> "plain-app".equals(m.getId().getTag("app")));
        assertThat(runtime.metrics().externalExporter()).isEmpty();
        assertThat(Jmx.names("plain-app")).isNotEmpty();
    }

    private FunctionCounter counter(String name, String tag, String value) {
        return registry.get(name).tags("app", "micrometer-app", tag, value).functionCounter();
    }
}
