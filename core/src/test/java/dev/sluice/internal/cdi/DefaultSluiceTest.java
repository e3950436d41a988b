package dev.sluice.internal.cdi;

import dev.sluice.Sluice;
import dev.sluice.SluiceConfigException;
import jakarta.inject.Inject;
import org.jboss.weld.junit5.EnableWeld;
import org.jboss.weld.junit5.WeldInitiator;
import org.jboss.weld.junit5.WeldSetup;
import org.junit.jupiter.api.Test;

import dev.sluice.RateLimitDecision;
import dev.sluice.RateLimiter;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link Sluice} as the CDI container gives it, on the in-process store. */
@EnableWeld
class DefaultSluiceTest {

    @WeldSetup
    WeldInitiator weld = WeldInitiator.from(WeldInitiator.createWeld()
                    .addExtension(new SluiceExtension(cl -> TestConfigs.of(Map.of("sluice.limit.api.rate", "10/1s",
                            "sluice.limit.trial.rate", "2/1h", "sluice.limit.trial.mode", "shadow", "sluice.limit.hourly.rate", "1/1h",
                            "sluice.limit.reports-in-flight.concurrency", "4")))))
            .build();

    @Inject
    Sluice sluice;

    @Test
    void aLimiterForAPolicyNobodyConfiguredNamesTheMissingRateKey() {
        assertThatThrownBy(() -> sluice.limiter("reports"))
                .isInstanceOf(SluiceConfigException.class)
                .hasMessage("sluice.limit.reports.rate: (absent), so no rate-limit policy named \"reports\" is"
                        + " configured; expected a rate <tokens>/<duration> such as 100/1m");
    }

    @Test
    void aShadowedPolicyChargesAsUsualButEveryDecisionSaysAllowed() {
        RateLimitDecision first = sluice.limiter("trial").tryAcquire("k");
        RateLimitDecision second = sluice.limiter("trial").tryAcquire("k");
        RateLimitDecision third = sluice.limiter("trial").tryAcquire("k");

        assertThat(first.allowed()).isTrue();
        assertThat(first.remaining()).isEqualTo(1);
        assertThat(second.remaining()).isZero();
        assertThat(third.allowed()).as("over the limit, but shadowed").isTrue();
        assertThat(third.remaining()).isZero();
        assertThat(third.retryAfterMillis()).isZero();
    }

    @Test
    void aResetGivesOneKeyItsBurstBackAndLeavesTheOthersAlone() {
        RateLimiter hourly = sluice.limiter("hourly");
        assertThat(hourly.tryAcquire("alice").allowed()).isTrue();
        assertThat(hourly.tryAcquire("bob").allowed()).isTrue();
        assertThat(hourly.tryAcquire("alice").allowed()).isFalse();
        assertThat(hourly.tryAcquire("alice").allowed()).as("refused from the deny cache").isFalse();

        hourly.reset("alice");

        assertThat(hourly.tryAcquire("alice").allowed()).isTrue();
        assertThat(hourly.tryAcquire("bob").allowed()).isFalse();
        assertThatThrownBy(() -> hourly.reset("")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aPolicyLimitingOnlyConcurrencyHasNoLimiter() {
        assertThatThrownBy(() -> sluice.limiter("reports-in-flight"))
                .isInstanceOf(SluiceConfigException.class)
                .hasMessageStartingWith("sluice.limit.reports-in-flight.rate: (absent), so policy \"reports-in-flight\""
                        + " limits only requests in flight");
    }
}
