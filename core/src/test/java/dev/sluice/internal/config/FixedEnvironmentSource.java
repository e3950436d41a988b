package dev.sluice.internal.config;

import io.smallrye.config.EnvConfigSource;

import java.util.Map;

/**
 * SmallRye Config's own environment source over fixed variables, so the MicroProfile path sees environment
 * variables without the test changing the real environment. Registered as a service only by the tests
 * that write its service file.
 */
public class FixedEnvironmentSource extends EnvConfigSource {

    public FixedEnvironmentSource() {
        super(Map.of(
                "SLUICE_LIMIT_MY_API_BURST", "9",
                "SLUICE_LIMIT_ENV_ONLY_RATE", "1/s",
                "SLUICE_REDIS_POOL_MAX_TOTAL", "8"), 350);
    }
}
