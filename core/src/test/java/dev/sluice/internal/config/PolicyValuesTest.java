package dev.sluice.internal.config;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static dev.sluice.internal.config.Rejections.rejects;
import static org.assertj.core.api.Assertions.assertThat;

/** Values of a full policy that the other configuration tests leave at their defaults. */
class PolicyValuesTest {

    private static PolicyConfig api(Map<String, String> values) {
        return SluiceConfigLoader.load(ConfigSources.of(values)).policy("api").orElseThrow();
    }

    @Test
    void readsAnExplicitEnabledTrueAndFilterEnabledTrue() {
        SluiceConfig c = SluiceConfigLoader.load(ConfigSources.of(Map.of("sluice.limit.api.rate", "10/1s",
                "sluice.limit.api.enabled", "true", "sluice.filter.enabled", "true")));
        assertThat(c.policy("api").orElseThrow().enabled()).isTrue();
        assertThat(c.filterEnabled()).isTrue();
        assertThat(api(Map.of("sluice.limit.api.rate", "10/1s", "sluice.limit.api.enabled", "FALSE")).enabled())
                .isFalse();
    }

    @Test
    void aCostAboveALaterBandwidthNamesThatBandwidth() {
        String message = rejects(Map.of("sluice.limit.api.rate", "100/1s,5/1m", "sluice.limit.api.cost", "6"),
                "sluice.limit.api.cost", "\"6\"");
        assertThat(message).contains("the 5 tokens that bandwidth 2 of sluice.limit.api.rate \"100/1s,5/1m\"")
                .doesNotContain("raise");
    }
}
