package dev.sluice.internal.cdi;

import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;

import java.util.Map;

/** Configurations for the CDI tests, read by the real loader from a map. */
final class TestConfigs {

    private TestConfigs() {
    }

    static SluiceConfig of(Map<String, String> values) {
        return SluiceConfigLoader.load(ConfigSources.of(values));
    }
}
