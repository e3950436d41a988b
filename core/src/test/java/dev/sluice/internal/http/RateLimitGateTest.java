package dev.sluice.internal.http;

import dev.sluice.RateLimitDecision;
import dev.sluice.StoreUnavailableException;
import dev.sluice.internal.config.Bandwidth;
import dev.sluice.internal.config.FailureMode;
import dev.sluice.internal.config.HeaderMode;
import dev.sluice.internal.config.KeySpec;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.limit.BucketOutcome;
import dev.sluice.internal.limit.BucketRequest;
import dev.sluice.internal.limit.DenyCache;
import dev.sluice.internal.limit.InProcessRateLimitStore;
import dev.sluice.internal.limit.Engines;
import dev.sluice.internal.limit.RateLimitEngine.LimitCall;
import dev.sluice.internal.limit.RateLimitStore;
import dev.sluice.internal.metrics.SluiceMetrics;
import dev.sluice.internal.config.RedisSettings;
import dev.sluice.internal.redis.CircuitBreaker;
import dev.sluice.test.Json;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one per-request decision both adapters call: which policies apply, their keys, the one store call, what
 * is recorded as charged, the headers and the problem body. The adapters' own tests only check translation.
 */
class RateLimitGateTest {

    /** The in-process store behind a switch that makes it fail like an unreachable Redis; it records each call. */
    static final class SwitchableStore implements RateLimitStore {
        final InProcessRateLimitStore real = new InProcessRateLimitStore();
        final AtomicInteger calls = new AtomicInteger();
        final List<List<String>> keys = new ArrayList<>();
        volatile boolean down;

        @Override
        public List<BucketOutcome> consume(List<BucketRequest> requests) {
            calls.incrementAndGet();
            keys.add(requests.stream().map(r -> r.key(0)).toList());
            if (down) {
                throw new StoreUnavailableException("connection refused", null);
            }
            return real.consume(requests);
        }

        @Override
        public int release(List<String> keys, String permitId) {
            calls.incrementAndGet();
            if (down) {
                throw new StoreUnavailableException("connection refused", null);
            }
            return real.release(keys, permitId);
        }

        @Override
        public boolean renew(String key, String permitId, long leaseMillis) {
            return real.renew(key, permitId, leaseMillis);
        }

        @Override
        public void close() {
        }
    }

    private final PolicyConfig login = policy("login", 5, KeySpec.IP, Set.of("POST"));
    private final SwitchableStore store = new SwitchableStore();
    private final AtomicLong nanos = new AtomicLong();
    private final CircuitBreaker breaker = new CircuitBreaker(3, Duration.ofSeconds(1), nanos::get, "test store");
    private final SluiceMetrics metrics = SluiceMetrics.unpublished(RedisSettings.none());
    private final DenyCache denials = new DenyCache(100, nanos::get);
    private final RateLimitGate gate = new RateLimitGate(Engines.over(store, "sluice", metrics, breaker, denials),
            HeaderMode.IETF);

    private static PolicyConfig policy(String name, long perMinute, KeySpec key, Set<String> methods) {
        return new PolicyConfig(name, List.of(new Bandwidth(perMinute, Duration.ofMinutes(1), perMinute)), key,
                List.of("/login"), methods, 1, true);
    }

    private static RateLimitGate.Policy http(PolicyConfig policy) {
        return RateLimitGate.Policy.of(policy, false);
    }

    private List<LimitCall> call(FailureMode mode) {
        return List.of(new LimitCall(login.withOnRedisFailure(mode), "192.0.2.1", 1));
    }

    private Verdict postLogin(Object charged, PolicyConfig... policies) {
        return gate.decide(TestRequest.get("/login").method("POST"),
                List.of(policies).stream().map(RateLimitGateTest::http).toList(), charged);
    }

    @Test
    void deniesTheSixthRequestOfAFivePerMinutePolicyWithHeadersAndAProblemBody() {
        for (int i = 0; i < 5; i++) {
            Verdict v = postLogin(null, login);
            assertThat(v.admitted()).isTrue();
            assertThat(v.decisions().get(0).remaining()).isEqualTo(4 - i);
            assertThat(v.headers()).extracting(RateLimitHeaders.Header::name)
                    .containsExactly("RateLimit-Policy", "RateLimit");
        }
        Verdict denied = postLogin(null, login);
        assertThat(denied.outcome()).isEqualTo(Verdict.Outcome.DENIED);
        assertThat(denied.status()).isEqualTo(429);
        assertThat(denied.headers()).extracting(RateLimitHeaders.Header::name)
                .containsExactly("Retry-After", "RateLimit-Policy", "RateLimit");
        assertThat(denied.headers()).contains(new RateLimitHeaders.Header("RateLimit-Policy", "\"login\";q=5;w=60"));
        Map<String, Object> body = Json.parseObject(denied.problem().toJson());
        assertThat(body).containsEntry("status", 429L).containsEntry("policy", "login");
        assertThat(denied.charged()).contains(Set.of("login"));
    }

    @Test
    void asksTheStoreOnceForEveryPolicyOfTheRequestWithEachPolicysKey() {
        PolicyConfig perUser = policy("per-user", 100, new KeySpec(KeySpec.Type.PRINCIPAL, ""), Set.of());
        PolicyConfig perTenant = policy("per-tenant", 100, new KeySpec(KeySpec.Type.HEADER, "X-Tenant"), Set.of());
        Verdict v = gate.decide(TestRequest.get("/login").method("POST").user("alice").header("X-Tenant", "acme"),
                List.of(http(login), http(perUser), http(perTenant)), null);

        assertThat(v.admitted()).isTrue();
        assertThat(store.calls).hasValue(1);
        assertThat(store.keys.get(0)).containsExactly("sluice:rl:{login:192.0.2.1}",
                "sluice:rl:{per-user:user:alice}", "sluice:rl:{per-tenant:h:acme}");
        assertThat(v.decisions()).extracting(RateLimitDecision::policy)
                .containsExactly("login", "per-user", "per-tenant");
        assertThat(v.charged()).contains(Set.of("login", "per-user", "per-tenant"));
    }

    @Test
    void skipsPoliciesAlreadyChargedForTheRequestAndKeepsThemRecorded() {
        PolicyConfig api = policy("api", 100, KeySpec.IP, Set.of());
        Verdict v = postLogin(Set.of("login", "from-elsewhere"), login, api);
        assertThat(store.keys).containsExactly(List.of("sluice:rl:{api:192.0.2.1}"));
        assertThat(v.charged()).contains(Set.of("login", "from-elsewhere", "api"));
    }

    @Test
    void nothingToCheckWhenEveryCandidateWasChargedOrDoesNotApply() {
        PolicyConfig off = new PolicyConfig("off", login.bandwidths(), KeySpec.IP, List.of("/login"), Set.of(), 1, false);
        assertThat(gate.decide(TestRequest.get("/login").method("GET"), List.of(http(login), http(off)), null))
                .as("login lists POST only; off is switched off").isSameAs(Verdict.NOTHING_TO_CHECK);
        assertThat(postLogin(Set.of("login"), login)).isSameAs(Verdict.NOTHING_TO_CHECK);
        assertThat(Verdict.NOTHING_TO_CHECK.charged()).isEmpty();
        assertThat(store.calls).hasValue(0);
    }

    @Test
    void aRefusedClientIsRefusedLocallyWithTheSameAnswerUntilItCouldPassWithoutAskingTheStore() {
        for (int i = 0; i < 5; i++) {
            postLogin(null, login);
        }
        Verdict fromRedis = postLogin(null, login);
        assertThat(fromRedis.status()).isEqualTo(429);
        assertThat(store.calls).hasValue(6);

        // within an entry's life (DenyCache.MAX_TRUST_MILLIS, 5 s)
        nanos.addAndGet(Duration.ofSeconds(4).toNanos());
        Verdict local = postLogin(null, login);
        assertThat(store.calls).as("answered from the deny cache").hasValue(6);
        assertThat(local.status()).isEqualTo(429);
        assertThat(local.charged()).contains(Set.of("login"));
        assertThat(local.headers()).extracting(RateLimitHeaders.Header::name)
                .containsExactly("Retry-After", "RateLimit-Policy", "RateLimit");
        assertThat(local.headers()).as("Retry-After counts down from Redis's 12 s")
                .contains(new RateLimitHeaders.Header("Retry-After", "8"));
        assertThat(Json.parseObject(local.problem().toJson())).containsEntry("policy", "login")
                .containsEntry("retryAfter", 8L);
        assertThat(metrics.policy("login").deniedLocallyCount()).isEqualTo(1);

        nanos.addAndGet(Duration.ofSeconds(8).toNanos());
        postLogin(null, login);
        assertThat(store.calls).as("asked again once the refusal has run out").hasValue(7);
    }

    @Test
    void otherClientsAndOtherPoliciesAreStillAsked() {
        for (int i = 0; i < 6; i++) {
            postLogin(null, login);
        }
        gate.decide(TestRequest.get("/login").method("POST").from("192.0.2.99"), List.of(http(login)), null);
        assertThat(store.calls).hasValue(7);
    }

    @Test
    void admissionsAreNeverRemembered() {
        PolicyConfig roomy = policy("roomy", 100, KeySpec.IP, Set.of());
        for (int i = 0; i < 3; i++) {
            postLogin(null, roomy);
        }
        assertThat(store.calls).hasValue(3);
        assertThat(denials.size()).isZero();
    }

    @Test
    void admitsWithoutHeadersWhenTheStoreIsDownAndFailingOpen() {
        store.down = true;
        Verdict v = gate.check(call(FailureMode.ALLOW));
        assertThat(v.outcome()).isEqualTo(Verdict.Outcome.UNAVAILABLE_ALLOWED);
        assertThat(v.admitted()).isTrue();
        assertThat(v.headers()).isEmpty();
    }

    @Test
    void answers503WithRetryAfterWhenTheStoreIsDownAndFailingClosed() {
        store.down = true;
        Verdict v = gate.check(call(FailureMode.DENY));
        assertThat(v.admitted()).isFalse();
        assertThat(v.status()).isEqualTo(503);
        assertThat(v.headers()).containsExactly(new RateLimitHeaders.Header("Retry-After", "1"));
        assertThat(v.problem().status()).isEqualTo(503);
    }

    @Test
    void onePolicyThatFailsClosedRefusesTheRequestWhileTheOthersFailOpen() {
        store.down = true;
        PolicyConfig api = policy("api", 100, KeySpec.IP, Set.of()).withOnRedisFailure(FailureMode.ALLOW);
        Verdict v = postLogin(null, api, login.withOnRedisFailure(FailureMode.DENY));
        assertThat(v.status()).isEqualTo(503);

        Verdict open = postLogin(null, api);
        assertThat(open.outcome()).isEqualTo(Verdict.Outcome.UNAVAILABLE_ALLOWED);
    }

    @Test
    void stopsCallingADeadStoreOnceTheBreakerOpensAndProbesAfterTheCoolDown() {
        store.down = true;
        for (int i = 0; i < 10; i++) {
            assertThat(gate.check(call(FailureMode.DENY)).status()).isEqualTo(503);
        }
        assertThat(store.calls).as("only the failures up to the threshold reach the store").hasValue(3);
        assertThat(gate.isBreakerOpen()).isTrue();

        nanos.addAndGet(Duration.ofSeconds(1).toNanos());
        store.down = false;
        assertThat(gate.check(call(FailureMode.DENY)).admitted()).isTrue();
        assertThat(store.calls).hasValue(4);
        assertThat(gate.isBreakerOpen()).isFalse();
    }

    @Test
    void retryAfterOfA503CoversTheRestOfTheCoolDown() {
        store.down = true;
        for (int i = 0; i < 3; i++) {
            gate.check(call(FailureMode.DENY));
        }
        nanos.addAndGet(Duration.ofMillis(200).toNanos());
        assertThat(gate.check(call(FailureMode.DENY)).headers())
                .containsExactly(new RateLimitHeaders.Header("Retry-After", "1"));
    }
}
