package dev.sluice.internal.metrics;

import dev.sluice.Permit;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.KeySpec;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.runtime.SluiceRuntime;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Request data must never become a metric name: whatever keys, lock keys and semaphore names requests
 * bring, JMX and Micrometer show exactly the names of the configuration (plus {@code (other)}).
 */
class MetricNamesAreBoundedTest {

    private static final String APP = "bounded-names";

    private final SimpleMeterRegistry micrometer = new SimpleMeterRegistry();
    private final Random random = new Random(8);
    private final Set<String> requestData = new HashSet<>();
    private SluiceRuntime runtime;
    private SluiceConfig config;

    @BeforeEach
    void start() {
        config = SluiceConfigLoader.load(ConfigSources.of(Map.of(
                "sluice.limit.api.rate", "5/1s",
                "sluice.limit.login.rate", "2/1m",
                "sluice.lock.orders.lease", "30s",
                "sluice.semaphore.pdf.permits", "2")));
        runtime = SluiceRuntime.start(config, APP, null);
        MetricsBridges.withBeans(runtime.metrics(), getClass().getClassLoader(), type ->
                type.getName().equals(MetricsBridges.MICROMETER_REGISTRY) ? Optional.of(micrometer) : Optional.empty());
    }

    @AfterEach
    void stop() {
        runtime.close();
    }

    @Test
    void aThousandRequestsWithRandomKeysAddNoMetricName() {
        PolicyConfig api = config.policy("api").orElseThrow();
        PolicyConfig login = config.policy("login").orElseThrow();
        for (int i = 0; i < 1000; i++) {
            String key = requestKey();
            runtime.rateLimits().decide(i % 2 == 0 ? api : login, key, 1);
        }
        for (int i = 0; i < 100; i++) {
            runtime.locks().lock(requestKey()).acquire(Duration.ofSeconds(5), Duration.ZERO).close();
            try (Permit permit = runtime.locks().semaphore(requestKey(), 1).acquire(Duration.ofSeconds(5), Duration.ZERO)) {
                assertThat(permit.isHeld()).isTrue();
            }
        }
        // A caller that built a policy around request data: counted, but under (other).
        String adHoc = requestKey();
        runtime.rateLimits().decide(new PolicyConfig(adHoc, api.bandwidths(), KeySpec.IP, List.of(), Set.of(), 1, true),
                requestKey(), 1);

        assertThat(Jmx.nameValues(APP, "RateLimit")).containsExactlyInAnyOrder("api", "login", SluiceMetrics.OTHER);
        assertThat(Jmx.nameValues(APP, "Lock")).containsExactlyInAnyOrder("orders", SluiceMetrics.OTHER);
        assertThat(Jmx.nameValues(APP, "Semaphore")).containsExactlyInAnyOrder("pdf", SluiceMetrics.OTHER);
        assertThat(Jmx.names(APP)).as("Redis and Config, then the names").hasSize(2 + 3 + 2 + 2);

        assertThat(tagValues("policy")).containsExactlyInAnyOrder("api", "login", SluiceMetrics.OTHER);
        assertThat(tagValues("lock")).containsExactlyInAnyOrder("orders", SluiceMetrics.OTHER);
        assertThat(tagValues("semaphore")).containsExactlyInAnyOrder("pdf", SluiceMetrics.OTHER);
        assertThat(tagValues("app")).containsExactly(APP);
        Set<String> everyTagValue = micrometer.getMeters().stream().flatMap(m -> m.getId().getTags().stream())
                .map(Tag::getValue).collect(Collectors.toSet());
        assertThat(everyTagValue).doesNotContainAnyElementsOf(requestData);

        assertThat(runtime.metrics().policy("api").allowedCount() + runtime.metrics().policy("api").deniedCount()).isEqualTo(500);
        assertThat(runtime.metrics().policy(SluiceMetrics.OTHER).allowedCount()).isEqualTo(1);
        assertThat(runtime.metrics().lock(SluiceMetrics.OTHER).waits().count()).isEqualTo(100);
        assertThat(runtime.metrics().semaphore(SluiceMetrics.OTHER).holds().count()).isEqualTo(100);
    }

    @Test
    void aProgrammaticLockWhoseKeyIsARegisteredNameIsCountedUnderIt() {
        runtime.locks().lock("orders").acquire(Duration.ofSeconds(5), Duration.ZERO).close();
        assertThat(Jmx.count("Lock", APP, "orders", "Acquired")).isEqualTo(1);
        assertThat(Jmx.nameValues(APP, "Lock")).containsExactly("orders");
    }

    /** Keys as hostile clients send them: random, long, with characters JMX and Prometheus care about. */
    private String requestKey() {
        String[] shapes = {"user-", "a,b=c:d*", "\"quoted\"", "../../etc", "{slot}", "ключ-", "x".repeat(80)};
        String key = shapes[random.nextInt(shapes.length)] + random.nextLong();
        requestData.add(key);
        return key;
    }

    private Set<String> tagValues(String key) {
        Set<String> values = new TreeSet<>();
        for (Meter meter : micrometer.getMeters()) {
            String value = meter.getId().getTag(key);
            if (value != null) {
                values.add(value);
            }
        }
        return values;
    }
}
