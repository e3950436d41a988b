package dev.sluice.internal.http;

import dev.sluice.internal.redis.CircuitBreaker;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.FailureMode;
import dev.sluice.internal.config.HeaderMode;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.limit.RateLimitEngine.LimitCall;
import dev.sluice.internal.metrics.PolicyMetrics;
import dev.sluice.internal.runtime.SluiceRuntime;
import dev.sluice.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** What the gate alone knows reaches the metrics: fail-open passes per policy, and the breaker's state. */
class GateMetricsTest {

    @RegisterExtension
    static RedisServer redis = RedisServer.standalone();

    private SluiceRuntime runtime;
    private List<LimitCall> calls;

    @BeforeEach
    void start() {
        SluiceConfig config = SluiceConfigLoader.load(ConfigSources.of(Map.of(
                "sluice.redis.uri", redis.uri(), "sluice.redis.timeout", "500ms",
                "sluice.limit.api.rate", "100/1m", "sluice.limit.login.rate", "100/1m")));
        runtime = SluiceRuntime.start(config, "gate-metrics", null);
        calls = List.of(new LimitCall(config.policy("api").orElseThrow(), "k", 1),
                new LimitCall(config.policy("login").orElseThrow(), "k", 1));
    }

    @AfterEach
    void stop() {
        runtime.close();
    }

    @Test
    void failOpenPassesAndTheBreakerStateAreCountedWhileRedisIsDown() {
        redis.assumeControllable();
        RateLimitGate gate = RateLimitGate.of(runtime, HeaderMode.IETF);
        assertThat(gate.check(calls).outcome()).isEqualTo(Verdict.Outcome.ALLOWED);

        redis.stop();
        for (int i = 0; i < CircuitBreaker.DEFAULT_THRESHOLD + 2; i++) {
            assertThat(gate.check(calls).outcome()).isEqualTo(Verdict.Outcome.UNAVAILABLE_ALLOWED);
        }

        PolicyMetrics api = runtime.metrics().policy("api");
        assertThat(api.failOpenCount()).isEqualTo(CircuitBreaker.DEFAULT_THRESHOLD + 2);
        assertThat(api.redisErrorCount()).isEqualTo(CircuitBreaker.DEFAULT_THRESHOLD);  // then the breaker skips Redis
        assertThat(runtime.metrics().policy("login").failOpenCount()).isEqualTo(CircuitBreaker.DEFAULT_THRESHOLD + 2);
        assertThat(runtime.metrics().redis().isBreakerOpen()).isTrue();
        assertThat(api.allowedCount()).isEqualTo(1);

        redis.start();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> gate.check(calls).outcome() == Verdict.Outcome.ALLOWED);
        assertThat(runtime.metrics().redis().isBreakerOpen()).isFalse();
        assertThat(runtime.metrics().redis().isReachable()).isTrue();
    }

    @Test
    void failClosedCountsNoFailOpenPass() {
        redis.assumeControllable();
        RateLimitGate gate = RateLimitGate.of(runtime, HeaderMode.IETF);
        List<LimitCall> failClosed = calls.stream()
                .map(c -> new LimitCall(c.policy().withOnRedisFailure(FailureMode.DENY), c.rawKey(), c.cost())).toList();
        redis.stop();
        assertThat(gate.check(failClosed).outcome()).isEqualTo(Verdict.Outcome.UNAVAILABLE_DENIED);

        assertThat(runtime.metrics().policy("api").failOpenCount()).isZero();
        assertThat(runtime.metrics().policy("api").redisErrorCount()).isEqualTo(1);
    }
}
