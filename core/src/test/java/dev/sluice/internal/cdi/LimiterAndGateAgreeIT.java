package dev.sluice.internal.cdi;

import dev.sluice.RateLimitDecision;
import dev.sluice.StoreUnavailableException;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.HeaderMode;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.http.RateLimitGate;
import dev.sluice.internal.http.TestRequest;
import dev.sluice.internal.http.Verdict;
import dev.sluice.internal.metrics.PolicyMetrics;
import dev.sluice.internal.redis.CircuitBreaker;
import dev.sluice.internal.runtime.SluiceRuntime;
import dev.sluice.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code Sluice.limiter()} and the HTTP gate answer one policy alike, and count alike, through every way Redis can
 * fail them: a key the node refused before (answered from the deny cache), calls Redis fails, and calls the open
 * circuit breaker skips; for each {@code on-redis-failure} and mode. Each entry point has a runtime of its own over
 * the same Redis (its own key prefix), and both are driven through the same steps. Redis is paused rather than
 * stopped: a stopped Redis drops the reset subscription, after which a node forgets its cached refusals (at a
 * moment of the subscriber thread's choosing), while a paused one fails calls by timeout and leaves it alone.
 */
class LimiterAndGateAgreeIT {

    @RegisterExtension
    static RedisServer redis = RedisServer.standalone();

    private final List<SluiceRuntime> runtimes = new ArrayList<>();
    private boolean paused;

    @AfterEach
    void close() {
        if (paused) {
            redis.resume();
        }
        runtimes.forEach(SluiceRuntime::close);
    }

    /** How a call went, as its caller sees it, and what the policy counted by then. */
    private record Answer(String step, String outcome, long allowed, long denied, long deniedLocally, long wouldDeny,
                          long redisErrors, long failOpen) {

        static Answer of(String step, String outcome, PolicyMetrics m) {
            return new Answer(step, outcome, m.allowedCount(), m.deniedCount(), m.deniedLocallyCount(),
                    m.wouldDenyCount(), m.redisErrorCount(), m.failOpenCount());
        }
    }

    @ParameterizedTest(name = "on-redis-failure={0}, mode={1}")
    @CsvSource({
            "allow, enforce, admitted refused refused admitted admitted admitted admitted",
            "deny, enforce, admitted refused refused unavailable unavailable unavailable unavailable",
            "allow, shadow, admitted admitted admitted admitted admitted admitted admitted",
            "deny, shadow, admitted admitted admitted admitted admitted admitted admitted"})
    void theLimiterAnswersAndCountsAsTheGateDoesWhileRedisFails(String onFailure, String mode, String expected) {
        redis.assumeControllable();
        SluiceRuntime forGate = start("gate", onFailure, mode);
        SluiceRuntime forLimiter = start("limiter", onFailure, mode);
        PolicyConfig policy = forGate.config().policy("p").orElseThrow();
        RateLimitGate gate = RateLimitGate.of(forGate, HeaderMode.IETF);
        List<RateLimitGate.Policy> candidates = List.of(RateLimitGate.Policy.of(policy, false));
        ConfiguredRateLimiter limiter = new ConfiguredRateLimiter(forLimiter,
                () -> forLimiter.config().policy("p").orElseThrow());

        List<String> steps = new ArrayList<>(List.of("first call", "burst spent", "down, key refused before"));
        for (int i = 1; i <= CircuitBreaker.DEFAULT_THRESHOLD + 1; i++) {
            steps.add(i <= CircuitBreaker.DEFAULT_THRESHOLD ? "down, fresh key " + i : "down, breaker open");
        }
        List<Answer> throughGate = new ArrayList<>();
        List<Answer> throughLimiter = new ArrayList<>();
        for (int i = 0; i < steps.size(); i++) {
            if (i == 2) {
                redis.pause();
                paused = true;
            }
            String client = i < 3 ? "192.0.2.1" : "192.0.2.2";
            // side by side, so that the timeouts of the paused Redis run together
            CompletableFuture<String> byLimiter = CompletableFuture.supplyAsync(() -> limiterOutcome(limiter, client));
            String byGate = gateOutcome(gate.decide(TestRequest.get("/").from(client), candidates, null));
            throughGate.add(Answer.of(steps.get(i), byGate, forGate.metrics().policy("p")));
            throughLimiter.add(Answer.of(steps.get(i), byLimiter.join(), forLimiter.metrics().policy("p")));
        }

        assertThat(throughGate).extracting(Answer::outcome).containsExactlyElementsOf(Arrays.asList(expected.split(" ")));
        assertThat(throughLimiter).containsExactlyElementsOf(throughGate);
    }

    private SluiceRuntime start(String prefix, String onFailure, String mode) {
        Map<String, String> values = Map.of(
                "sluice.redis.uri", redis.uri(), "sluice.redis.timeout", "300ms", "sluice.key-prefix", prefix,
                "sluice.limit.p.rate", "1/1h", "sluice.limit.p.on-redis-failure", onFailure,
                "sluice.limit.p.mode", mode);
        SluiceConfig config = SluiceConfigLoader.load(ConfigSources.of(values));
        SluiceRuntime runtime = SluiceRuntime.start(config, "agree-" + prefix, null);
        runtimes.add(runtime);
        return runtime;
    }

    private static String gateOutcome(Verdict verdict) {
        return switch (verdict.outcome()) {
            case ALLOWED, UNAVAILABLE_ALLOWED -> "admitted";
            case DENIED -> "refused";
            case UNAVAILABLE_DENIED -> "unavailable";
        };
    }

    private static String limiterOutcome(ConfiguredRateLimiter limiter, String key) {
        try {
            RateLimitDecision decision = limiter.tryAcquire(key);
            return decision.allowed() ? "admitted" : "refused";
        } catch (StoreUnavailableException e) {
            return "unavailable";
        }
    }
}
