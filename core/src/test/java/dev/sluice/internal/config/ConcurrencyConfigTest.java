package dev.sluice.internal.config;

import dev.sluice.SluiceConfigException;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code sluice.limit.<policy>.concurrency} and {@code .concurrency-lease}. */
class ConcurrencyConfigTest {

    private static PolicyConfig load(String... keyValues) {
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            values.put(keyValues[i], keyValues[i + 1]);
        }
        return SluiceConfigLoader.load(ConfigSources.of(values)).policy("reports").orElseThrow();
    }

    @Test
    void aConcurrencyLimitAloneHasNoRateAndTheDefaultLease() {
        PolicyConfig policy = load("sluice.limit.reports.concurrency", "4", "sluice.limit.reports.paths", "/reports");

        assertThat(policy.limitsConcurrency()).isTrue();
        assertThat(policy.limitsRate()).isFalse();
        assertThat(policy.concurrency()).isEqualTo(4);
        assertThat(policy.concurrencyLeaseMillis()).isEqualTo(30_000).isEqualTo(PolicyConfig.DEFAULT_CONCURRENCY_LEASE_MILLIS);
    }

    @Test
    void theLeaseIsADuration() {
        assertThat(load("sluice.limit.reports.concurrency", "4", "sluice.limit.reports.rate", "10/1s",
                "sluice.limit.reports.concurrency-lease", "2m").concurrencyLeaseMillis()).isEqualTo(120_000);
        assertThat(load("sluice.limit.reports.concurrency", "4", "sluice.limit.reports.concurrency-lease", "PT0.5S")
                .concurrencyLeaseMillis()).isEqualTo(500);
    }

    @Test
    void aBadLeaseFailsNamingKeyValueAndForm() {
        for (String bad : new String[] {"0s", "50ms", "2d", "soon", "-1s"}) {
            assertThatThrownBy(() -> load("sluice.limit.reports.concurrency", "4",
                    "sluice.limit.reports.concurrency-lease", bad))
                    .isInstanceOf(SluiceConfigException.class)
                    .hasMessageContaining("sluice.limit.reports.concurrency-lease")
                    .hasMessageContaining(bad)
                    .hasMessageContaining("a duration from 100ms to 1d");
        }
    }

    @Test
    void aLeaseWithoutAConcurrencyLimitFails() {
        assertThatThrownBy(() -> load("sluice.limit.reports.rate", "10/1s", "sluice.limit.reports.concurrency-lease", "5s"))
                .isInstanceOf(SluiceConfigException.class)
                .hasMessageContaining("sluice.limit.reports.concurrency-lease")
                .hasMessageContaining("5s")
                .hasMessageContaining("only beside sluice.limit.reports.concurrency=<N>");
    }

    @Test
    void aBadConcurrencyFailsNamingKeyValueAndForm() {
        assertThatThrownBy(() -> load("sluice.limit.reports.concurrency", "0"))
                .isInstanceOf(SluiceConfigException.class)
                .hasMessageContaining("sluice.limit.reports.concurrency")
                .hasMessageContaining("\"0\"");
    }

    @Test
    void aTypoNearTheLeaseKeyIsCaught() {
        assertThatThrownBy(() -> load("sluice.limit.reports.concurrency", "4", "sluice.limit.reports.concurrency-leas", "5s"))
                .isInstanceOf(SluiceConfigException.class)
                .hasMessageContaining("concurrency-lease");
    }
}
