package dev.sluice.internal.cdi;

import dev.sluice.Sluice;
import dev.sluice.SluiceConfigException;
import jakarta.inject.Inject;
import org.jboss.weld.junit5.EnableWeld;
import org.jboss.weld.junit5.WeldInitiator;
import org.jboss.weld.junit5.WeldSetup;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link Sluice} as the CDI container gives it, on the in-process store. */
@EnableWeld
class DefaultSluiceTest {

    @WeldSetup
    WeldInitiator weld = WeldInitiator.from(WeldInitiator.createWeld()
                    .addExtension(new SluiceExtension(cl -> TestConfigs.of(Map.of("sluice.limit.api.rate", "10/1s",
                            "sluice.limit.trial.rate", "1/1h", "sluice.limit.trial.mode", "shadow",
                            "sluice.limit.trial.count", "401")))))
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
    void aLimiterEnforcesAndChargesEveryCallWhateverThePolicysModeAndCount() {
        assertThat(sluice.limiter("trial").tryAcquire("k").allowed()).isTrue();
        assertThat(sluice.limiter("trial").tryAcquire("k").allowed()).isFalse();
    }
}
