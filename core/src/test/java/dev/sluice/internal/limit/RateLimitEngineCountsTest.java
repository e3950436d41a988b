package dev.sluice.internal.limit;

import dev.sluice.RateLimitDecision;
import dev.sluice.StoreUnavailableException;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.RedisSettings;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.limit.RateLimitEngine.LimitCall;
import dev.sluice.internal.metrics.SluiceMetrics;
import dev.sluice.internal.redis.CircuitBreaker;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the engine counts and tells around the store call: which policies count an admission when another
 * refuses the request, a concurrency limit's waits, returning permits through the breaker, and its keys.
 */
class RateLimitEngineCountsTest {

    private final AtomicLong micros = new AtomicLong(1_700_000_000_000_000L);
    private final AtomicLong nanos = new AtomicLong();
    private final InProcessRateLimitStore real = new InProcessRateLimitStore(micros::get);
    private volatile boolean down;
    private final java.util.concurrent.atomic.AtomicInteger storeCalls = new java.util.concurrent.atomic.AtomicInteger();
    private final RateLimitStore store = new RateLimitStore() {
        @Override
        public List<BucketOutcome> consume(List<BucketRequest> requests) {
            storeCalls.incrementAndGet();
            if (down) {
                throw new StoreUnavailableException("connection refused", null);
            }
            return real.consume(requests);
        }

        @Override
        public int release(List<String> keys, String permitId) {
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
            real.close();
        }
    };
    private final SluiceMetrics metrics = SluiceMetrics.unpublished(RedisSettings.none());
    private final CircuitBreaker breaker = new CircuitBreaker(2, Duration.ofSeconds(1), nanos::get, "test store",
            metrics.redis());
    private final DenyCache denials = new DenyCache(10, nanos::get);
    private final RateLimitEngine engine = Engines.over(store, "sluice", metrics, breaker, denials, nanos::get);

    private Map<String, PolicyConfig> policies(String... keysAndValues) {
        java.util.Map<String, String> settings = new java.util.HashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            settings.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        SluiceConfig config = SluiceConfigLoader.load(ConfigSources.of(settings));
        metrics.register(config);
        return config.policies();
    }

    @Test
    void aPolicyThatWouldAdmitARequestAnotherRefusedCountsNeitherAllowedNorDenied() {
        Map<String, PolicyConfig> p = policies("sluice.limit.tight.rate", "1/1m", "sluice.limit.loose.rate", "100/1m");
        engine.decide(p.get("tight"), "k", 1);
        List<RateLimitDecision> decisions = engine.decide(List.of(new LimitCall(p.get("tight"), "k", 1),
                new LimitCall(p.get("loose"), "k", 1)));
        assertThat(decisions.get(0).allowed()).isFalse();
        assertThat(decisions.get(1).allowed()).isTrue();
        assertThat(metrics.policy("tight").deniedCount()).isEqualTo(1);
        assertThat(metrics.policy("loose").allowedCount()).isZero();
        assertThat(metrics.policy("loose").deniedCount()).isZero();
    }

    @Test
    void anAdmittingConcurrencyDecisionTellsNoWaitAndARefusingOneAtMostASecond() {
        PolicyConfig cc = policies("sluice.limit.cc.concurrency", "2").get("cc");
        RateLimitDecision taken = engine.decide(List.of(LimitCall.concurrency(cc, "k", ChargeMode.CONCURRENCY,
                engine.newPermitId()))).get(0);
        assertThat(taken.allowed()).isTrue();
        assertThat(taken.retryAfterMillis()).as("a permit is still free").isZero();
        RateLimitDecision last = engine.decide(List.of(LimitCall.concurrency(cc, "k", ChargeMode.CONCURRENCY,
                engine.newPermitId()))).get(0);
        assertThat(last.allowed()).isTrue();
        assertThat(last.retryAfterMillis()).as("full now: the wait for a free permit, capped").isEqualTo(1000);
        RateLimitDecision refused = engine.decide(List.of(LimitCall.concurrency(cc, "k", ChargeMode.CONCURRENCY,
                engine.newPermitId()))).get(0);
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.retryAfterMillis()).isEqualTo(RateLimitEngine.CONCURRENCY_RETRY_MILLIS);
    }

    @Test
    void returningPermitsCountsThoseHeldAndASuccessfulReturnClosesTheBreakersFailureCount() {
        PolicyConfig cc = policies("sluice.limit.cc.concurrency", "2").get("cc");
        String id = engine.newPermitId();
        engine.decide(List.of(LimitCall.concurrency(cc, "a", ChargeMode.CONCURRENCY, id)));
        engine.decide(List.of(LimitCall.concurrency(cc, "b", ChargeMode.CONCURRENCY, id)));

        down = true;
        assertThatThrownBy(() -> engine.decide(List.of(LimitCall.concurrency(cc, "c", ChargeMode.CONCURRENCY, id))))
                .isInstanceOf(StoreUnavailableException.class);
        down = false;
        assertThat(engine.release(List.of(engine.permitKey("cc", "a"), engine.permitKey("cc", "b")), id))
                .isEqualTo(2);
        down = true;
        assertThatThrownBy(() -> engine.decide(List.of(LimitCall.concurrency(cc, "c", ChargeMode.CONCURRENCY, id))))
                .isInstanceOf(StoreUnavailableException.class);
        assertThat(breaker.isOpen()).as("one failure since the successful return, threshold 2").isFalse();
    }

    @Test
    void aFailedReturnCountsAsAFailureOfTheStore() {
        policies("sluice.limit.cc.concurrency", "2");
        down = true;
        for (int i = 0; i < 2; i++) {
            assertThatThrownBy(() -> engine.release(List.of(engine.permitKey("cc", "a")), "x"))
                    .isInstanceOf(StoreUnavailableException.class);
        }
        assertThat(breaker.isOpen()).isTrue();
        assertThat(metrics.redis().isReachable()).isFalse();
    }

    @Test
    void aFailedDecisionMarksTheStoreUnreachable() {
        PolicyConfig rl = policies("sluice.limit.rl.rate", "5/1m").get("rl");
        engine.decide(rl, "k", 1);
        assertThat(metrics.redis().isReachable()).isTrue();
        down = true;
        assertThatThrownBy(() -> engine.decide(rl, "k", 1)).isInstanceOf(StoreUnavailableException.class);
        assertThat(metrics.redis().isReachable()).isFalse();
        assertThat(metrics.policy("rl").redisErrorCount()).isEqualTo(1);
    }

    @Test
    void anAdmissionWithoutTheStoreIsCountedAsFailOpenForEachPolicy() {
        Map<String, PolicyConfig> p = policies("sluice.limit.a.rate", "1/1m", "sluice.limit.b.rate", "1/1m");
        down = true;
        assertThat(engine.admit(List.of(new LimitCall(p.get("a"), "k", 1), new LimitCall(p.get("b"), "k", 1)))
                .outcome()).isEqualTo(Admission.Outcome.UNAVAILABLE_ADMITTED);
        assertThat(engine.admit(List.of(new LimitCall(p.get("a"), "k", 1))).outcome())
                .isEqualTo(Admission.Outcome.UNAVAILABLE_ADMITTED);
        assertThat(metrics.policy("a").failOpenCount()).isEqualTo(2);
        assertThat(metrics.policy("b").failOpenCount()).isEqualTo(1);
    }

    @Test
    void keysNameTheKindThePolicyAndTheKeyMaterial() {
        assertThat(engine.permitKey("api", "10.0.0.1")).isEqualTo("sluice:cc:{api:10.0.0.1}");
        assertThat(engine.bucketKey("api", "10.0.0.1")).isEqualTo("sluice:rl:{api:10.0.0.1}");
        assertThat(engine.denials()).isSameAs(denials);
        assertThat(engine.breaker()).isSameAs(breaker);
        assertThat(engine.newPermitId()).isNotEqualTo(engine.newPermitId());
    }

    /** A policy of 100 a minute whose node holds up to 100 tokens (an age of a minute, on the still clock). */
    private PolicyConfig budgeted(Map<String, PolicyConfig> p) {
        return p.get("hot").withLocalBudget(60_000);
    }

    /** Decides until the node holds {@code tokens}: reservations of 0, 1, 3, 7... then the last one's tokens spent. */
    private void holdTokens(PolicyConfig hot) {
        for (int i = 0; i < 4; i++) {
            engine.decide(hot, "k", 1); // the node holds 3 after the fourth
        }
    }

    @Test
    void anAdmissionPaidFromTheLocalBudgetCountsAsAllowedAndAsAllowedLocally() {
        PolicyConfig hot = budgeted(policies("sluice.limit.hot.rate", "100/1m"));
        holdTokens(hot);
        engine.decide(hot, "k", 1);
        engine.decide(hot, "k", 1);
        assertThat(metrics.policy("hot").allowedCount()).isEqualTo(6);
        assertThat(metrics.policy("hot").allowedLocallyCount()).as("the third and the last two").isEqualTo(3);
    }

    @Test
    void whileTheStoreIsDownTheTokensANodeHoldsAreStillSpent() {
        PolicyConfig hot = budgeted(policies("sluice.limit.hot.rate", "100/1m",
                "sluice.limit.hot.on-redis-failure", "deny"));
        holdTokens(hot);
        down = true;
        for (int i = 0; i < 3; i++) {
            assertThat(engine.admit(List.of(new LimitCall(hot, "k", 1))).outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        }
        assertThat(engine.admit(List.of(new LimitCall(hot, "k", 1))).outcome())
                .as("none left: on-redis-failure").isEqualTo(Admission.Outcome.UNAVAILABLE_REFUSED);
        assertThat(metrics.policy("hot").redisErrorCount()).isEqualTo(1);
    }

    @Test
    void aRefusalFromTheDenyCacheGivesTheTokensOfTheRequestsOtherPoliciesBack() {
        Map<String, PolicyConfig> p = policies("sluice.limit.hot.rate", "100/1m", "sluice.limit.once.rate", "1/1h");
        PolicyConfig hot = budgeted(p);
        holdTokens(hot);
        engine.decide(p.get("once"), "k", 1);
        assertThat(engine.decide(p.get("once"), "k", 1).allowed()).isFalse(); // remembered
        List<LimitCall> both = List.of(new LimitCall(hot, "k", 1), new LimitCall(p.get("once"), "k", 1));
        for (int i = 0; i < 5; i++) {
            assertThat(engine.decide(both)).singleElement().matches(d -> !d.allowed());
        }
        assertThat(metrics.policy("once").deniedLocallyCount()).isEqualTo(5);
        long asked = metrics.policy("hot").allowedCount() - metrics.policy("hot").allowedLocallyCount();
        for (int i = 0; i < 3; i++) {
            engine.decide(hot, "k", 1);
        }
        assertThat(metrics.policy("hot").allowedCount() - metrics.policy("hot").allowedLocallyCount())
                .as("the three tokens are still the node's").isEqualTo(asked);
    }

    @Test
    void aReservationOfARequestTheDenyCacheRefusedEndsSoTheNextCanReserve() {
        Map<String, PolicyConfig> p = policies("sluice.limit.hot.rate", "100/1m", "sluice.limit.once.rate", "1/1h");
        PolicyConfig hot = budgeted(p);
        engine.decide(p.get("once"), "k", 1);
        assertThat(engine.decide(p.get("once"), "k", 1).allowed()).isFalse(); // remembered
        // hot holds nothing for k: its call would reserve, but the cache refuses the request first
        assertThat(engine.decide(List.of(new LimitCall(hot, "k", 1), new LimitCall(p.get("once"), "k", 1))))
                .singleElement().matches(d -> !d.allowed());
        engine.decide(hot, "k", 1); // the refused request was the first to ask: this one reserves 1
        int calls = storeCalls.get();
        assertThat(engine.decide(hot, "k", 1).allowed()).isTrue();
        assertThat(storeCalls.get()).as("paid from the batch: the refused request's reservation had ended")
                .isEqualTo(calls);
    }

    @Test
    void aBudgetedKeyThatRedisRefusedIsThenRefusedByTheDenyCache() {
        PolicyConfig hot = budgeted(policies("sluice.limit.hot.rate", "3/1h")).withLocalBudget(3_600_000);
        for (int i = 0; i < 3; i++) {
            assertThat(engine.decide(hot, "k", 1).allowed()).isTrue();
        }
        assertThat(engine.decide(hot, "k", 1).allowed()).isFalse();
        assertThat(engine.decide(hot, "k", 1).allowed()).isFalse();
        assertThat(metrics.policy("hot").deniedCount()).isEqualTo(2);
        assertThat(metrics.policy("hot").deniedLocallyCount()).isEqualTo(1);
    }

    @Test
    void aRequestPaidLocallyStaysAdmittedWhenTheReservationOfItsNextBatchFails() {
        PolicyConfig hot = budgeted(policies("sluice.limit.hot.rate", "100/1m",
                "sluice.limit.hot.on-redis-failure", "deny"));
        for (int i = 0; i < 12; i++) {
            engine.decide(hot, "k", 1);
        }
        down = true;
        int refreshesThatFailed = 0;
        Admission.Outcome outcome;
        do {
            int calls = storeCalls.get();
            outcome = engine.admit(List.of(new LimitCall(hot, "k", 1))).outcome();
            if (storeCalls.get() > calls && outcome == Admission.Outcome.ADMITTED) {
                refreshesThatFailed++; // paid from the node's tokens; asking for the next batch failed
            }
        } while (outcome == Admission.Outcome.ADMITTED);
        assertThat(refreshesThatFailed).isEqualTo(1);
        assertThat(outcome).as("once the tokens are spent: on-redis-failure").isEqualTo(
                Admission.Outcome.UNAVAILABLE_REFUSED);
        assertThat(metrics.policy("hot").redisErrorCount()).as("the refused request only").isEqualTo(1);

        down = false;
        nanos.addAndGet(2_000_000_000L); // the breaker's cool-down
        assertThat(engine.decide(hot, "k", 1).allowed()).isTrue();
        int calls = storeCalls.get();
        assertThat(engine.decide(hot, "k", 1).allowed()).isTrue();
        assertThat(storeCalls.get()).as("the failed reservations ended: the one after reserved a batch again")
                .isEqualTo(calls);
    }

    @Test
    void aRequestWhoseOtherPolicyTheStoreCouldNotDecideGivesItsLocalTokenBack() {
        Map<String, PolicyConfig> p = policies("sluice.limit.hot.rate", "100/1m", "sluice.limit.other.rate", "100/1m");
        PolicyConfig hot = budgeted(p);
        holdTokens(hot); // the node holds 3
        down = true;
        List<LimitCall> both = List.of(new LimitCall(hot, "k", 1), new LimitCall(p.get("other"), "k", 1));
        assertThat(engine.admit(both).outcome()).isEqualTo(Admission.Outcome.UNAVAILABLE_ADMITTED);
        down = false;
        int calls = storeCalls.get();
        RateLimitDecision next = engine.decide(hot, "k", 1);
        assertThat(storeCalls.get()).isEqualTo(calls);
        assertThat(next.remaining()).as("3 held less this one, and the bucket's 93").isEqualTo(2 + 93);
    }

    @Test
    void aShadowedPolicyKeepsTheTokenItTookForARequestAnEnforcedPolicyRefused() {
        Map<String, PolicyConfig> p = policies("sluice.limit.hot.rate", "100/1m", "sluice.limit.hot.mode", "shadow",
                "sluice.limit.once.rate", "1/1h");
        PolicyConfig hot = budgeted(p);
        for (int i = 0; i < 4; i++) {
            engine.decide(List.of(new LimitCall(hot, "k", 1, ChargeMode.SHADOW))); // the node holds 3
        }
        engine.decide(p.get("once"), "k", 1);
        List<LimitCall> both = List.of(new LimitCall(hot, "k", 1, ChargeMode.SHADOW),
                new LimitCall(p.get("once"), "k", 1));
        denials.clear();
        assertThat(engine.decide(both).get(1).allowed()).isFalse();
        RateLimitDecision next = engine.decide(List.of(new LimitCall(hot, "k", 1, ChargeMode.SHADOW))).get(0);
        assertThat(next.remaining()).as("charged as the store charges a shadowed policy that admits: 1 left of 3")
                .isEqualTo(1 + 93);
    }

    @Test
    void aRequestPaidLocallyThatRefreshesItsBatchSendsTheCheckWithItsOtherPolicies() {
        Map<String, PolicyConfig> p = policies("sluice.limit.hot.rate", "100/1m", "sluice.limit.other.rate", "100/1m");
        PolicyConfig hot = budgeted(p);
        holdTokens(hot); // the node holds 3
        engine.decide(hot, "k", 1);
        engine.decide(hot, "k", 1); // 1 left: the next spends it and asks for the next batch
        int calls = storeCalls.get();
        List<LimitCall> both = List.of(new LimitCall(hot, "k", 1), new LimitCall(p.get("other"), "k", 1));
        assertThat(engine.decide(both)).allMatch(RateLimitDecision::allowed);
        assertThat(storeCalls.get() - calls).as("one call for the other policy and the check").isEqualTo(1);
        for (int i = 0; i < 3; i++) {
            assertThat(engine.decide(hot, "k", 1).allowed()).isTrue();
        }
        assertThat(storeCalls.get() - calls).as("paid from the batch the check brought").isEqualTo(1);
        assertThat(metrics.policy("hot").allowedLocallyCount()).as("1 before, 2, the refreshing one and 3")
                .isEqualTo(1 + 2 + 1 + 3);
    }
}
