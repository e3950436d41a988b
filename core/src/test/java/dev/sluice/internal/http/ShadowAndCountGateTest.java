package dev.sluice.internal.http;

import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.HeaderMode;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.RedisSettings;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.limit.DenyCache;
import dev.sluice.internal.limit.Engines;
import dev.sluice.internal.metrics.PolicyMetrics;
import dev.sluice.internal.metrics.SluiceMetrics;
import dev.sluice.internal.redis.CircuitBreaker;
import dev.sluice.test.LogCapture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Shadowed policies and policies that count only some response statuses, as the gate applies them: who
 * decides, what is charged when, how many store calls it takes, and what each policy counts.
 */
class ShadowAndCountGateTest {

    @RegisterExtension
    final LogCapture logs = new LogCapture();

    private final RateLimitGateTest.SwitchableStore store = new RateLimitGateTest.SwitchableStore();
    private final AtomicLong nanos = new AtomicLong();
    private final SluiceMetrics metrics = SluiceMetrics.unpublished(RedisSettings.none());
    private final RateLimitGate gate = new RateLimitGate(Engines.over(store, "sluice", metrics,
            new CircuitBreaker(3, Duration.ofSeconds(1), nanos::get, "test store"), new DenyCache(100, nanos::get)),
            HeaderMode.IETF);

    private Map<String, PolicyConfig> policies(String... keysAndValues) {
        Map<String, String> settings = new HashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            settings.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        SluiceConfig config = SluiceConfigLoader.load(ConfigSources.of(settings));
        metrics.register(config);
        return config.policies();
    }

    private Verdict request(PolicyConfig... policies) {
        List<RateLimitGate.Policy> candidates = new ArrayList<>();
        for (PolicyConfig policy : policies) {
            candidates.add(RateLimitGate.Policy.of(policy, false));
        }
        return gate.decide(TestRequest.get("/login").method("POST"), candidates, null);
    }

    /** A request that runs and answers {@code status}. */
    private Verdict respond(int status, PolicyConfig... policies) {
        Verdict verdict = request(policies);
        if (verdict.admitted()) {
            verdict.afterResponse().completed(status);
        }
        return verdict;
    }

    @Test
    void aShadowedPolicyNeverRefusesShowsNoHeadersAndCountsWouldBeRefusals() {
        PolicyConfig api = policies("sluice.limit.api.rate", "2/1m", "sluice.limit.api.mode", "shadow").get("api");
        for (int i = 0; i < 5; i++) {
            Verdict verdict = request(api);
            assertThat(verdict.outcome()).isEqualTo(Verdict.Outcome.ALLOWED);
            assertThat(verdict.decisions()).isEmpty();
            assertThat(verdict.headers()).isEmpty();
        }
        PolicyMetrics counts = metrics.policy("api");
        assertThat(counts.allowedCount()).isEqualTo(2);
        assertThat(counts.wouldDenyCount()).isEqualTo(3);
        assertThat(counts.deniedCount()).isZero();
    }

    @Test
    void sluiceModeShadowsEveryPolicyThatSetsNoModeOfItsOwn() {
        Map<String, PolicyConfig> all = policies("sluice.mode", "shadow",
                "sluice.limit.api.rate", "1/1m", "sluice.limit.login.rate", "1/1m", "sluice.limit.login.mode", "enforce");
        request(all.get("api"), all.get("login"));
        Verdict second = request(all.get("api"), all.get("login"));
        assertThat(second.outcome()).isEqualTo(Verdict.Outcome.DENIED);
        assertThat(metrics.policy("login").deniedCount()).isEqualTo(1);
        assertThat(metrics.policy("api").wouldDenyCount()).isEqualTo(1);
        assertThat(metrics.policy("api").deniedCount()).isZero();
    }

    @Test
    void theEnforcedPolicyAloneDecidesInTheSameStoreCallAndItsHeadersAloneAreSent() {
        Map<String, PolicyConfig> all = policies("sluice.limit.api.rate", "5/1m",
                "sluice.limit.tight.rate", "1/1m", "sluice.limit.tight.mode", "shadow");
        for (int i = 0; i < 3; i++) {
            Verdict verdict = request(all.get("api"), all.get("tight"));
            assertThat(verdict.admitted()).isTrue();
            assertThat(verdict.decisions()).extracting(d -> d.policy()).containsExactly("api");
            assertThat(verdict.headers().toString()).contains("\"api\"").doesNotContain("tight");
        }
        assertThat(store.calls).as("one store call per request").hasValue(3);
        assertThat(metrics.policy("api").allowedCount()).isEqualTo(3);
        assertThat(metrics.policy("tight").allowedCount()).isEqualTo(1);
        assertThat(metrics.policy("tight").wouldDenyCount()).isEqualTo(2);
    }

    @Test
    void oneWarningPerShadowedPolicyCarriesTheFirstKey() {
        PolicyConfig api = policies("sluice.limit.api.rate", "1/1m", "sluice.limit.api.mode", "shadow").get("api");
        for (int i = 0; i < 4; i++) {
            request(api);
        }
        assertThat(logs.records(Level.WARNING, "dev.sluice")).extracting(logs::text).singleElement().asString()
                .contains("policy api is in shadow mode and would have refused 1 request")
                .contains("e.g. key 192.0.2.1");
    }

    @Test
    void aShadowWarningNeverShowsAValueTakenFromAHeaderOrQueryParameter() {
        Map<String, PolicyConfig> all = policies(
                "sluice.limit.byheader.rate", "1/1m", "sluice.limit.byheader.mode", "shadow",
                "sluice.limit.byheader.key", "header:X-Api-Key",
                "sluice.limit.byquery.rate", "1/1m", "sluice.limit.byquery.mode", "shadow",
                "sluice.limit.byquery.key", "query:token",
                "sluice.limit.byuser.rate", "1/1m", "sluice.limit.byuser.mode", "shadow",
                "sluice.limit.byuser.key", "principal");
        List<RateLimitGate.Policy> candidates = new ArrayList<>();
        for (PolicyConfig policy : all.values()) {
            candidates.add(RateLimitGate.Policy.of(policy, false));
        }
        for (int i = 0; i < 2; i++) {
            gate.decide(TestRequest.get("/login").header("X-Api-Key", "sk1").query("token", "tok-2").user("alice"),
                    candidates, null);
        }
        List<String> lines = logs.records(Level.WARNING, "dev.sluice").stream().map(logs::text).toList();
        assertThat(lines).hasSize(3);
        assertThat(String.join("\n", lines)).doesNotContain("sk1").doesNotContain("tok-2")
                .contains("e.g. key h:#").contains("e.g. key q:#").as("principals stay readable")
                .contains("e.g. key user:alice");
    }

    @Test
    void aLoginPolicyCountingFailuresIsChargedOnlyByThemAndRefusesTheFourthEvenWithTheRightPassword() {
        PolicyConfig login = policies("sluice.limit.login.rate", "3/1m", "sluice.limit.login.count", "401")
                .get("login");
        for (int i = 0; i < 10; i++) {
            assertThat(respond(200, login).admitted()).as("successful login %d", i + 1).isTrue();
        }
        assertThat(store.calls).as("one check per request, no charge for a success").hasValue(10);
        for (int i = 0; i < 3; i++) {
            Verdict failure = respond(401, login);
            assertThat(failure.admitted()).isTrue();
            assertThat(failure.decisions().get(0).remaining()).as("checked, not taken").isEqualTo(3 - i);
        }
        assertThat(store.calls).as("a check and a charge per failure").hasValue(16);

        Verdict fourth = respond(200, login);
        assertThat(fourth.outcome()).isEqualTo(Verdict.Outcome.DENIED);
        assertThat(fourth.status()).isEqualTo(429);
        assertThat(fourth.afterResponse().isEmpty()).isTrue();

        PolicyMetrics counts = metrics.policy("login");
        assertThat(counts.allowedCount()).isEqualTo(13);
        assertThat(counts.chargedAfterResponseCount()).isEqualTo(3);
        assertThat(counts.deniedCount()).isEqualTo(1);
    }

    @Test
    void theChargeAfterTheResponseRunsOnceHoweverOftenTheAdapterReportsIt() {
        PolicyConfig login = policies("sluice.limit.login.rate", "3/1m", "sluice.limit.login.count", "4xx,5xx")
                .get("login");
        Verdict verdict = request(login);
        verdict.afterResponse().completed(500);
        verdict.afterResponse().completed(500);
        assertThat(store.calls).hasValue(2);
        assertThat(metrics.policy("login").chargedAfterResponseCount()).isEqualTo(1);
    }

    @Test
    void onlyTheCountingPoliciesWhoseStatusMatchesAreChargedAfterTheResponse() {
        Map<String, PolicyConfig> all = policies("sluice.limit.api.rate", "10/1m",
                "sluice.limit.unauthorized.rate", "5/1m", "sluice.limit.unauthorized.count", "401",
                "sluice.limit.errors.rate", "5/1m", "sluice.limit.errors.count", "5xx");
        Verdict verdict = request(all.get("api"), all.get("unauthorized"), all.get("errors"));
        assertThat(verdict.decisions()).hasSize(3);
        verdict.afterResponse().completed(401);
        assertThat(store.keys).containsExactly(
                List.of("sluice:rl:{api:192.0.2.1}", "sluice:rl:{unauthorized:192.0.2.1}", "sluice:rl:{errors:192.0.2.1}"),
                List.of("sluice:rl:{unauthorized:192.0.2.1}"));
        assertThat(metrics.policy("errors").chargedAfterResponseCount()).isZero();
        assertThat(metrics.policy("api").chargedAfterResponseCount()).isZero();
    }

    @Test
    void aShadowedLoginPolicyNeverRefusesButCountsTheFailuresItWouldRefuse() {
        PolicyConfig login = policies("sluice.limit.login.rate", "2/1m", "sluice.limit.login.count", "401",
                "sluice.limit.login.mode", "shadow").get("login");
        for (int i = 0; i < 5; i++) {
            Verdict verdict = respond(401, login);
            assertThat(verdict.admitted()).isTrue();
            assertThat(verdict.headers()).isEmpty();
        }
        PolicyMetrics counts = metrics.policy("login");
        assertThat(counts.chargedAfterResponseCount()).isEqualTo(5);
        assertThat(counts.wouldDenyCount()).as("checks after the second failure").isEqualTo(3);
        assertThat(counts.deniedCount()).isZero();
    }
}
