package dev.sluice.internal.runtime;

import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The startup line tells an operator which policies refuse nobody and which charge only some responses. */
class RuntimeSummaryTest {

    @Test
    void showsShadowModeAndCountedStatusesOfEachPolicy() {
        SluiceConfig config = SluiceConfigLoader.load(ConfigSources.of(Map.of(
                "sluice.limit.api.rate", "100/1m",
                "sluice.limit.login.rate", "3/1m", "sluice.limit.login.paths", "/login",
                "sluice.limit.login.count", "401,5XX", "sluice.limit.login.mode", "shadow")));
        assertThat(RuntimeSummary.policy(config.policy("api").orElseThrow())).isEqualTo("api(100/1m, key=ip)");
        assertThat(RuntimeSummary.policy(config.policy("login").orElseThrow()))
                .isEqualTo("login(3/1m, key=ip, paths=[/login], mode=shadow, count=401,5xx)");
    }
}
