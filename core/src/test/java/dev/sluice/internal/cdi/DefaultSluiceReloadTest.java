package dev.sluice.internal.cdi;

import dev.sluice.RateLimitDecision;
import dev.sluice.RateLimiter;
import dev.sluice.Sluice;
import jakarta.inject.Inject;
import org.jboss.weld.junit5.EnableWeld;
import org.jboss.weld.junit5.WeldInitiator;
import org.jboss.weld.junit5.WeldSetup;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code Sluice.limiter()} follows a reload of the configuration, as the filters do. */
@EnableWeld
class DefaultSluiceReloadTest {

    private final Map<String, String> values = new ConcurrentHashMap<>(Map.of("sluice.limit.api.rate", "1/1h"));

    @WeldSetup
    WeldInitiator weld = WeldInitiator.from(WeldInitiator.createWeld()
                    .addExtension(new SluiceExtension(cl -> TestConfigs.of(values))))
            .build();

    @Inject
    Sluice sluice;

    @Inject
    SluiceExtension extension;

    @Test
    void aLimiterTakenBeforeAReloadAppliesTheReloadedRate() {
        RateLimiter limiter = sluice.limiter("api");
        assertThat(limiter.tryAcquire("k").allowed()).isTrue();
        assertThat(limiter.tryAcquire("k").allowed()).isFalse();

        values.put("sluice.limit.api.rate", "100/1s");
        String summary = extension.runtime().reloads().reload();

        assertThat(summary).contains("api");
        RateLimitDecision after = limiter.tryAcquire("k");
        assertThat(after.limit()).isEqualTo(100);
        assertThat(after.retryAfterMillis()).as("the spent bucket counts as just empty under the new rate")
                .isBetween(0L, 10L);
        assertThat(sluice.limiter("api").tryAcquire("k").limit()).isEqualTo(100);
    }

    @Test
    void aBadReloadedValueKeepsThePolicyInForce() {
        RateLimiter limiter = sluice.limiter("api");
        values.put("sluice.limit.api.rate", "lots");

        extension.runtime().reloads().reload();

        assertThat(limiter.tryAcquire("k").limit()).isEqualTo(1);
    }
}
