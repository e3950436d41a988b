package dev.sluice.internal.http;

import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.HeaderMode;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.RedisSettings;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.limit.DenyCache;
import dev.sluice.internal.limit.Engines;
import dev.sluice.internal.metrics.SluiceMetrics;
import dev.sluice.internal.redis.CircuitBreaker;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A policy with a local budget as the gate applies it: requests paid from the node's tokens are admitted with the
 * same headers, whose {@code r} counts the tokens the node holds and what the bucket held when it took them, and
 * cost no store call.
 */
class LocalBudgetGateTest {

    private final RateLimitGateTest.SwitchableStore store = new RateLimitGateTest.SwitchableStore();
    private final AtomicLong nanos = new AtomicLong();
    private final SluiceMetrics metrics = SluiceMetrics.unpublished(RedisSettings.none());
    private final RateLimitGate gate = new RateLimitGate(Engines.over(store, "sluice", metrics,
            new CircuitBreaker(3, Duration.ofSeconds(1), nanos::get, "test store"), new DenyCache(100, nanos::get),
            nanos::get), HeaderMode.IETF);

    /** 20 an hour; its budget an hour long on the still clock, so that nothing ages (the key allows at most 1s). */
    private PolicyConfig hot() {
        SluiceConfig config = SluiceConfigLoader.load(ConfigSources.of(Map.of("sluice.limit.hot.rate", "20/1h",
                "sluice.limit.hot.paths", "/api/*")));
        metrics.register(config);
        return config.policy("hot").orElseThrow().withLocalBudget(3_600_000);
    }

    private Verdict request(PolicyConfig policy) {
        return gate.decide(TestRequest.get("/api/x"), List.of(RateLimitGate.Policy.of(policy, false)), null);
    }

    @Test
    void aRequestPaidFromTheNodesTokensIsAdmittedWithHeadersAndNoStoreCall() {
        PolicyConfig hot = hot();
        for (int i = 0; i < 3; i++) {
            request(hot); // reservations of 0 and 1, then that token spent
        }
        Verdict reserving = request(hot); // reserves 3 beside its own token: the bucket holds 13
        assertThat(reserving.headers()).contains(new RateLimitHeaders.Header("RateLimit", "\"hot\";r=16;t=0"));
        int calls = store.calls.get();
        Verdict local = request(hot);
        assertThat(store.calls).as("paid from the node's tokens").hasValue(calls);
        assertThat(local.admitted()).isTrue();
        assertThat(local.headers()).containsExactly(
                new RateLimitHeaders.Header("RateLimit-Policy", "\"hot\";q=20;w=3600"),
                new RateLimitHeaders.Header("RateLimit", "\"hot\";r=15;t=0"));
        assertThat(local.charged()).contains(java.util.Set.of("hot"));
        assertThat(metrics.policy("hot").allowedLocallyCount()).isEqualTo(2);
    }
}
