package dev.sluice.internal.config;

import dev.sluice.SluiceConfigException;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code sluice.limit.<policy>.local-budget}: the age of a node's reserved tokens, and the bound it implies. */
class LocalBudgetConfigTest {

    private static PolicyConfig load(String... keyValues) {
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            values.put(keyValues[i], keyValues[i + 1]);
        }
        return SluiceConfigLoader.load(ConfigSources.of(values)).policy("hot").orElseThrow();
    }

    @Test
    void aPolicyHasNoLocalBudgetUnlessItSaysSo() {
        PolicyConfig policy = load("sluice.limit.hot.rate", "1000/1s");
        assertThat(policy.hasLocalBudget()).isFalse();
        assertThat(policy.localBudgetMillis()).isZero();
        assertThat(policy.localBudgetTokens()).isZero();
        assertThat(load("sluice.limit.hot.rate", "1000/1s", "sluice.limit.hot.local-budget", "0").hasLocalBudget())
                .isFalse();
    }

    @Test
    void aNodeHoldsAtMostWhatTheRateGrantsInOneAge() {
        PolicyConfig policy = load("sluice.limit.hot.rate", "10000/1s", "sluice.limit.hot.local-budget", "50ms");
        assertThat(policy.localBudgetMillis()).isEqualTo(50);
        assertThat(policy.localBudgetTokens()).isEqualTo(500);
        assertThat(load("sluice.limit.hot.rate", "10000/1s", "sluice.limit.hot.local-budget", "PT0.05S")
                .localBudgetTokens()).isEqualTo(500);
    }

    @Test
    void theBoundIsTheSlowestBandwidthsAndNeverBelowTheCost() {
        assertThat(load("sluice.limit.hot.rate", "1000/1s,6000/1m", "sluice.limit.hot.local-budget", "100ms")
                .localBudgetTokens()).as("6000/1m grants 10 in 100 ms, 1000/1s 100").isEqualTo(10);
        assertThat(load("sluice.limit.hot.rate", "100/1s", "sluice.limit.hot.burst", "100",
                "sluice.limit.hot.cost", "5", "sluice.limit.hot.local-budget", "10ms").localBudgetTokens())
                .as("100/1s grants one token in 10 ms, less than one request's cost").isEqualTo(5);
    }

    @Test
    void anAgeLongerThanTheBucketTakesToRefillIsRefused() {
        assertThatThrownBy(() -> load("sluice.limit.hot.rate", "1000/1s", "sluice.limit.hot.burst", "100",
                "sluice.limit.hot.local-budget", "200ms"))
                .isInstanceOf(SluiceConfigException.class)
                .hasMessageStartingWith("sluice.limit.hot.local-budget: \"200ms\"")
                .hasMessageContaining("bucket of 100 tokens (100000 µs)")
                .hasMessageContaining("expected 0 (no local budget) or a duration from 1ms to at most that refill time");
        assertThat(load("sluice.limit.hot.rate", "1000/1s", "sluice.limit.hot.burst", "100",
                "sluice.limit.hot.local-budget", "100ms").localBudgetTokens()).isEqualTo(100);
    }

    @Test
    void aConcurrencyLimitAloneCannotHaveALocalBudget() {
        assertThatThrownBy(() -> load("sluice.limit.hot.concurrency", "4", "sluice.limit.hot.local-budget", "50ms"))
                .isInstanceOf(SluiceConfigException.class)
                .hasMessageStartingWith("sluice.limit.hot.local-budget: \"50ms\" reserves a rate's tokens, but"
                        + " sluice.limit.hot.concurrency \"4\" is the policy's only limit")
                .hasMessageContaining("expected a local-budget only beside sluice.limit.hot.rate");
    }

    @Test
    void aRateWithAConcurrencyLimitMayHaveOne() {
        PolicyConfig policy = load("sluice.limit.hot.rate", "1000/1s", "sluice.limit.hot.concurrency", "4",
                "sluice.limit.hot.local-budget", "50ms");
        assertThat(policy.localBudgetTokens()).isEqualTo(50);
        assertThat(policy.limitsConcurrency()).isTrue();
    }

    @Test
    void aPartialPolicysLocalBudgetIsValidatedToo() {
        assertThatThrownBy(() -> SluiceConfigLoader.load(ConfigSources.of(Map.of("sluice.limit.hot.local-budget", "1h"))))
                .isInstanceOf(SluiceConfigException.class)
                .hasMessageStartingWith("sluice.limit.hot.local-budget: \"1h\"");
    }
}
