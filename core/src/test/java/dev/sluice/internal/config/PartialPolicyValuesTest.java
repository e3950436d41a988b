package dev.sluice.internal.config;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Map;

import static dev.sluice.internal.config.Rejections.rejects;

/**
 * A policy that sets neither {@code rate} nor {@code paths} only overrides attributes of a JAX-RS
 * {@code @RateLimited} policy; its values are still checked at deployment, like those of a full policy.
 */
class PartialPolicyValuesTest {

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource({
            "sluice.limit.search.burst, 0",
            "sluice.limit.search.cost, 0",
            "sluice.limit.search.key, ipaddress",
            "sluice.limit.search.methods, G E T",
            "sluice.limit.search.enabled, maybe",
            "sluice.limit.search.on-redis-failure, sometimes"})
    void aBadValueOfAPartialPolicyFailsTheDeployment(String key, String value) {
        rejects(Map.of(key, value), key, "\"" + value + "\"");
    }
}
