package dev.sluice.internal.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.Map;

import static dev.sluice.internal.config.Rejections.rejects;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code sluice.config.refresh}: 0 or absent is off; a duration of at least 100ms; anything else fails deployment. */
class ConfigRefreshValuesTest {

    @ParameterizedTest
    @CsvSource({"0, 0", "0s, 0", "100ms, 100", "30s, 30000", "5m, 300000", "PT1M, 60000"})
    void acceptsZeroAndDurationsFromOneHundredMilliseconds(String value, long millis) {
        SluiceConfig config = SluiceConfigLoader.load(ConfigSources.of(Map.of("sluice.config.refresh", value)));
        assertThat(config.configRefresh()).isEqualTo(Duration.ofMillis(millis));
    }

    @Test
    void isOffByDefault() {
        assertThat(SluiceConfigLoader.load(ConfigSources.of(Map.of())).configRefresh()).isZero();
    }

    @ParameterizedTest
    @ValueSource(strings = {"-1s", "PT-1S", "99ms", "ten seconds", "30", "1x"})
    void refusesNegativeTooShortAndMalformedValuesNamingTheForm(String value) {
        String message = rejects(Map.of("sluice.config.refresh", value), "sluice.config.refresh", value);
        assertThat(message).contains("0 (off) or a duration of at least 100ms");
    }
}
