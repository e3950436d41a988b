package dev.sluice.internal.runtime;

import dev.sluice.internal.config.ConfigSources;
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
}
