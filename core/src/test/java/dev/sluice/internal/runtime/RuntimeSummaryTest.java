package dev.sluice.internal.runtime;

import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class RuntimeSummaryTest {

    @Test
    void theStartLineListsWhoIsExemptFromEachPolicy() {
        String line = RuntimeSummary.of(SluiceConfigLoader.load(ConfigSources.of(Map.of(
                "sluice.limit.api.rate", "100/1m",
                "sluice.limit.api.exempt", "role:ops, 10.0.0.0/8, principal:probe, 2001:db8::7",
                "sluice.limit.login.rate", "5/1m"))), "app");
        assertThat(line).contains("api(100/1m, key=ip, exempt=[10.0.0.0/8, 2001:db8::7, principal:probe, role:ops])")
                .contains("login(5/1m, key=ip)");
    }

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
