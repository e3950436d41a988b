package dev.sluice.internal.limit;

import dev.sluice.RateLimitDecision;
import dev.sluice.StoreUnavailableException;
import dev.sluice.internal.config.PolicyConfig;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static dev.sluice.internal.limit.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The behaviour every rate-limit store must show, run against each store (in-process, Redis standalone,
 * Redis Cluster). Scenarios use hour- and day-long windows so that the store's real clock moving during a
 * test changes nothing visible; clock-driven behaviour is covered by the in-process tests with a
 * controlled clock and by the differential test.
 */
abstract class AbstractRateLimitContractTest {

    private static final Duration HOUR = Duration.ofHours(1);
    private static final long TOKEN_MS_AT_5_PER_HOUR = 720_000;

    /** A store with no buckets in it. */
    protected abstract RateLimitStore freshStore();

    private RateLimitEngine engine;
    /** The store under {@link #engine}, asked directly by the permit cases. */
    private RateLimitStore store;
    private final AtomicInteger storeCalls = new AtomicInteger();
    /** While set, the next decision runs in the store and its reply is lost, as when a reply times out. */
    private final AtomicBoolean loseNextReply = new AtomicBoolean();

    /** The clock local budgets age on, in the engine of the budget cases: still unless a case moves it. */
    private final AtomicLong budgetNanos = new AtomicLong(1_000_000_000L);
    /** An engine over the same counted store whose local budgets age on {@link #budgetNanos}. */
    private RateLimitEngine budgeted;

    @BeforeEach
    void startWithEmptyStore() {
        store = freshStore();
        RateLimitStore counted = new RateLimitStore() {
            @Override
            public List<BucketOutcome> consume(List<BucketRequest> requests) {
                storeCalls.incrementAndGet();
                List<BucketOutcome> outcomes = store.consume(requests);
                if (loseNextReply.compareAndSet(true, false)) {
                    throw new StoreUnavailableException("Redis rate-limit call failed: Read timed out", null);
                }
                return outcomes;
            }

            @Override
            public int release(List<String> keys, String permitId) {
                return store.release(keys, permitId);
            }

            @Override
            public boolean renew(String key, String permitId, long leaseMillis) {
                return store.renew(key, permitId, leaseMillis);
            }

            @Override
            public void close() {
                store.close();
            }
        };
        engine = Engines.over(counted, "sluice");
        budgeted = Engines.over(counted, "sluice", budgetNanos::get);
    }

    private RateLimitDecision in(ChargeMode mode, PolicyConfig policy, String key) {
        return engine.decide(List.of(new RateLimitEngine.LimitCall(policy, key, 1, mode))).get(0);
    }

    private RateLimitDecision take(PolicyConfig policy, String key) {
        return engine.decide(policy, key, 1);
    }

    @Test
    void admitsTheBurstThenDenies() {
        PolicyConfig login = policy("login", 5, HOUR);
        for (int i = 4; i >= 0; i--) {
            RateLimitDecision decision = take(login, "10.0.0.1");
            assertThat(decision.allowed()).isTrue();
            assertThat(decision.remaining()).isEqualTo(i);
        }
        RateLimitDecision denied = take(login, "10.0.0.1");
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.remaining()).isZero();
        assertThat(denied.limit()).isEqualTo(5);
        assertThat(denied.windowSeconds()).isEqualTo(3600);
        assertThat(denied.retryAfterMillis()).isBetween(TOKEN_MS_AT_5_PER_HOUR - 5_000, TOKEN_MS_AT_5_PER_HOUR);
    }

    @Test
    void burstLargerThanRateIsAdmittedAtOnce() {
        PolicyConfig api = policy("api", 12, 5, HOUR);
        for (int i = 0; i < 12; i++) {
            assertThat(take(api, "k").allowed()).as("request %d", i + 1).isTrue();
        }
        assertThat(take(api, "k").allowed()).isFalse();
    }

    @Test
    void keysHaveSeparateBuckets() {
        PolicyConfig login = policy("login", 1, HOUR);
        assertThat(take(login, "alice").allowed()).isTrue();
        assertThat(take(login, "alice").allowed()).isFalse();
        assertThat(take(login, "bob").allowed()).isTrue();
    }

    @Test
    void policiesHaveSeparateBucketsForTheSameKey() {
        assertThat(take(policy("a", 1, HOUR), "k").allowed()).isTrue();
        assertThat(take(policy("b", 1, HOUR), "k").allowed()).isTrue();
        assertThat(take(policy("a", 1, HOUR), "k").allowed()).isFalse();
    }

    @Test
    void deniedRequestsAreNotCharged() {
        PolicyConfig login = policy("login", 2, HOUR);
        take(login, "k");
        take(login, "k");
        long firstWait = take(login, "k").retryAfterMillis();
        for (int i = 0; i < 5; i++) {
            assertThat(take(login, "k").retryAfterMillis()).isLessThanOrEqualTo(firstWait);
        }
    }

    @Test
    void costIsTakenFromTheBucket() {
        PolicyConfig export = policy("export", 5, HOUR);
        assertThat(engine.decide(export, "k", 3).remaining()).isEqualTo(2);
        RateLimitDecision denied = engine.decide(export, "k", 3);
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.remaining()).isEqualTo(2);
        assertThat(denied.retryAfterMillis()).isBetween(TOKEN_MS_AT_5_PER_HOUR - 5_000, TOKEN_MS_AT_5_PER_HOUR);
        assertThat(engine.decide(export, "k", 2).allowed()).isTrue();
    }

    @Test
    void costAboveCapacityIsNeverAdmittedAndChargesNothing() {
        PolicyConfig export = policy("export", 5, HOUR);
        RateLimitDecision decision = engine.decide(export, "k", 6);
        assertThat(decision.allowed()).isFalse();
        assertThat(decision.never()).isTrue();
        assertThat(decision.retryAfterMillis()).isEqualTo(RateLimitDecision.NEVER);
        assertThat(engine.decide(export, "k", 5).allowed()).isTrue();
    }

    @Test
    void everyBandwidthIsCheckedAndTheTightestIsReported() {
        PolicyConfig api = policy("api", 10, 10, HOUR, 3, Duration.ofDays(1));
        RateLimitDecision first = take(api, "k");
        assertThat(first.remaining()).isEqualTo(2);
        assertThat(first.limit()).isEqualTo(3);
        assertThat(first.windowSeconds()).isEqualTo(86_400);
        take(api, "k");
        take(api, "k");
        RateLimitDecision denied = take(api, "k");
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.retryAfterMillis()).isBetween(28_795_000L, 28_800_000L);
    }

    @Test
    void bandwidthsAreChargedAllOrNothing() {
        Duration day = Duration.ofDays(1);
        PolicyConfig api = policy("api", 5, 5, day, 2, HOUR);
        take(api, "k");
        take(api, "k");
        for (int i = 0; i < 4; i++) {
            assertThat(take(api, "k").allowed()).as("the hourly bandwidth is spent").isFalse();
        }
        // Same policy name and key, daily bandwidth only: it reads the daily bucket, charged twice, not six times.
        PolicyConfig dailyOnly = policy("api", 5, 5, day);
        assertThat(take(dailyOnly, "k").remaining()).isEqualTo(2);
    }

    @Test
    void aDenialByOnePolicyChargesNoOtherPolicyOfTheRequest() {
        PolicyConfig perIp = policy("per-ip", 5, HOUR);
        PolicyConfig global = policy("global", 1, HOUR);
        List<RateLimitEngine.LimitCall> request = List.of(
                new RateLimitEngine.LimitCall(perIp, "10.0.0.1", 1),
                new RateLimitEngine.LimitCall(global, "all", 1));

        List<RateLimitDecision> first = engine.decide(request);
        assertThat(first).allMatch(RateLimitDecision::allowed);
        assertThat(first.get(0).remaining()).isEqualTo(4);

        List<RateLimitDecision> second = engine.decide(request);
        assertThat(second.get(1).allowed()).isFalse();
        assertThat(second.get(0).allowed()).as("per-ip alone would admit").isTrue();
        assertThat(second.get(0).remaining()).as("but it was not charged").isEqualTo(4);

        assertThat(take(perIp, "10.0.0.1").remaining()).isEqualTo(3);
    }

    @Test
    void resetIsTheTimeUntilTheBucketIsFull() {
        PolicyConfig login = policy("login", 5, HOUR);
        take(login, "k");
        RateLimitDecision second = take(login, "k");
        assertThat(second.resetMillis()).isBetween(2 * TOKEN_MS_AT_5_PER_HOUR - 5_000, 2 * TOKEN_MS_AT_5_PER_HOUR);
    }

    @Test
    void admittedDecisionSaysWhenTheNextTokenArrivesOnceTheBucketIsEmpty() {
        PolicyConfig login = policy("login", 2, HOUR);
        RateLimitDecision first = take(login, "k");
        assertThat(first.retryAfterMillis()).isZero();
        RateLimitDecision last = take(login, "k");
        assertThat(last.allowed()).isTrue();
        assertThat(last.remaining()).isZero();
        assertThat(last.retryAfterMillis()).isBetween(1_800_000L - 5_000, 1_800_000L);
    }

    @Test
    void theNextTokenOfAnAdmittedRequestWaitsForEveryBandwidthLeftEmpty() {
        // 10/h with a burst of 1 plus 1/h: after one request both are empty; the first refills in 6 minutes,
        // but a second request needs the hourly one too.
        PolicyConfig api = policy("api", 1, 10, HOUR, 1, HOUR);
        RateLimitDecision first = take(api, "k");
        assertThat(first.allowed()).isTrue();
        assertThat(first.remaining()).isZero();
        assertThat(first.retryAfterMillis()).isBetween(3_600_000L - 5_000, 3_600_000L);
    }

    @Test
    void theLimitShownIsTheBucketSoRemainingNeverExceedsIt() {
        // 5/h with a burst of 12: the bucket holds 12 and refills in 12 × 12 minutes.
        PolicyConfig api = policy("api", 12, 5, HOUR);
        RateLimitDecision first = take(api, "k");
        assertThat(first.remaining()).isEqualTo(11);
        assertThat(first.limit()).isEqualTo(12);
        assertThat(first.windowSeconds()).isEqualTo(12 * 720);
        for (int i = 0; i < 12; i++) {
            RateLimitDecision d = take(api, "k");
            assertThat(d.remaining()).isLessThanOrEqualTo(d.limit());
        }
    }

    @Test
    void hostileKeysAreDecidedLikeAnyOther() {
        PolicyConfig login = policy("login", 1, HOUR);
        String hostile = "}\r\n{x" + "A".repeat(10_000) + "\u0000é";
        assertThat(take(login, hostile).allowed()).isTrue();
        assertThat(take(login, hostile).allowed()).isFalse();
        assertThat(take(login, hostile + "!").allowed()).isTrue();
    }

    @Test
    void aShadowedPolicyIsChargedWhileItAdmitsAndRefusesWithoutBeingCharged() {
        PolicyConfig api = policy("api", 2, HOUR);
        assertThat(in(ChargeMode.SHADOW, api, "k").remaining()).isEqualTo(1);
        assertThat(in(ChargeMode.SHADOW, api, "k").remaining()).isZero();
        RateLimitDecision wouldDeny = in(ChargeMode.SHADOW, api, "k");
        assertThat(wouldDeny.allowed()).as("its own decision, which refuses no request").isFalse();
        long firstWait = wouldDeny.retryAfterMillis();
        for (int i = 0; i < 3; i++) {
            assertThat(in(ChargeMode.SHADOW, api, "k").retryAfterMillis()).as("not charged").isLessThanOrEqualTo(firstWait);
        }
        assertThat(take(api, "k").allowed()).as("the same bucket, enforced").isFalse();
    }

    @Test
    void anEnforcedPolicyAloneDecidesWhileAShadowedOneIsChargedOnItsOwnInOneStoreCall() {
        PolicyConfig enforced = policy("enforced", 2, HOUR);
        PolicyConfig shadowed = policy("shadowed", 3, HOUR);
        List<RateLimitEngine.LimitCall> request = List.of(
                new RateLimitEngine.LimitCall(enforced, "k", 1, ChargeMode.ENFORCE),
                new RateLimitEngine.LimitCall(shadowed, "k", 1, ChargeMode.SHADOW));
        storeCalls.set(0);
        assertThat(engine.decide(request)).allMatch(RateLimitDecision::allowed);
        assertThat(storeCalls).as("one store call for both").hasValue(1);
        assertThat(engine.decide(request)).allMatch(RateLimitDecision::allowed);

        List<RateLimitDecision> third = engine.decide(request);
        assertThat(third.get(0).allowed()).as("the enforced policy refuses").isFalse();
        assertThat(third.get(1).allowed()).isTrue();
        assertThat(third.get(1).remaining()).as("the shadowed one is charged although the request is refused")
                .isZero();

        List<RateLimitDecision> fourth = engine.decide(request);
        assertThat(fourth.get(1).allowed()).as("the shadowed policy would refuse").isFalse();
        assertThat(storeCalls).hasValue(4);

        PolicyConfig roomy = policy("roomy", 5, HOUR);
        List<RateLimitDecision> admitted = engine.decide(List.of(
                new RateLimitEngine.LimitCall(roomy, "k", 1, ChargeMode.ENFORCE),
                new RateLimitEngine.LimitCall(shadowed, "k", 1, ChargeMode.SHADOW)));
        assertThat(admitted.get(0).allowed()).as("a shadowed refusal does not refuse the enforced policy").isTrue();
        assertThat(admitted.get(0).remaining()).as("which is charged").isEqualTo(4);
        assertThat(admitted.get(1).allowed()).isFalse();
    }

    @Test
    void aCheckAdmitsWithoutChargingAndRefusesOnceChargesLeftNoToken() {
        PolicyConfig login = policy("login", 3, HOUR);
        for (int i = 0; i < 5; i++) {
            RateLimitDecision check = in(ChargeMode.CHECK, login, "k");
            assertThat(check.allowed()).isTrue();
            assertThat(check.remaining()).as("nothing taken").isEqualTo(3);
        }
        for (int i = 0; i < 3; i++) {
            assertThat(in(ChargeMode.CHARGE, login, "k").allowed()).isTrue();
        }
        RateLimitDecision refused = in(ChargeMode.CHECK, login, "k");
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.remaining()).isZero();
        assertThat(refused.retryAfterMillis()).isBetween(1_200_000L - 5_000, 1_200_000L);
        assertThat(in(ChargeMode.CHECK, login, "k").retryAfterMillis()).as("a refused check charges nothing")
                .isLessThanOrEqualTo(refused.retryAfterMillis());
    }

    @Test
    void aChargeNeverTakesTheBucketBeyondEmpty() {
        PolicyConfig login = policy("login", 3, HOUR);
        for (int i = 0; i < 10; i++) {
            RateLimitDecision charge = in(ChargeMode.CHARGE, login, "k");
            assertThat(charge.allowed()).as("a charge is never refused").isTrue();
        }
        RateLimitDecision refused = in(ChargeMode.CHECK, login, "k");
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.retryAfterMillis()).as("one token away, not eight").isBetween(1_200_000L - 5_000, 1_200_000L);
        assertThat(refused.resetMillis()).as("empty, not further").isBetween(3_600_000L - 5_000, 3_600_000L);
    }

    @Test
    void aShadowedCheckNeitherRefusesNorCharges() {
        PolicyConfig login = policy("login", 1, HOUR);
        assertThat(in(ChargeMode.SHADOW_CHECK, login, "k").remaining()).isEqualTo(1);
        in(ChargeMode.CHARGE, login, "k");
        RateLimitDecision wouldDeny = in(ChargeMode.SHADOW_CHECK, login, "k");
        assertThat(wouldDeny.allowed()).isFalse();
        assertThat(in(ChargeMode.SHADOW_CHECK, login, "k").retryAfterMillis())
                .isLessThanOrEqualTo(wouldDeny.retryAfterMillis());
    }

    @Test
    void aRefusingCheckRefusesTheRequestSoItsEnforcedPoliciesAreNotCharged() {
        PolicyConfig login = policy("login", 1, HOUR);
        PolicyConfig api = policy("api", 5, HOUR);
        in(ChargeMode.CHARGE, login, "k");
        List<RateLimitDecision> refused = engine.decide(List.of(
                new RateLimitEngine.LimitCall(api, "k", 1, ChargeMode.ENFORCE),
                new RateLimitEngine.LimitCall(login, "k", 1, ChargeMode.CHECK)));
        assertThat(refused.get(1).allowed()).isFalse();
        assertThat(refused.get(0).allowed()).isTrue();
        assertThat(take(api, "k").remaining()).as("api was not charged for the refused request").isEqualTo(4);
    }

    private static BucketRequest permitOf(String key, int permits, String id) {
        return BucketRequest.permits(key, ChargeMode.CONCURRENCY, new BucketRequest.Permit(permits, 600_000, id));
    }

    private static RateLimitEngine.LimitCall permitCall(PolicyConfig policy, String key, String id) {
        return RateLimitEngine.LimitCall.concurrency(policy, key, ChargeMode.CONCURRENCY, id);
    }

    /** A policy limiting concurrency alone. */
    private static PolicyConfig inFlight(String name, int permits) {
        return new PolicyConfig(name, List.of(), dev.sluice.internal.config.KeySpec.IP, List.of(), java.util.Set.of(),
                1, true, dev.sluice.internal.config.FailureMode.ALLOW, dev.sluice.internal.config.PolicyMode.ENFORCE,
                dev.sluice.internal.config.CountedStatuses.ALL, dev.sluice.internal.config.Exemptions.NONE, permits,
                600_000);
    }

    /**
     * The one automatic retry of a decision whose connection broke after the script ran asks again under the same
     * permit id: the permit it finds is its own, granted again, not counted against it.
     */
    @Test
    void aPermitIdAlreadyHoldingAPermitIsGrantedAgainNotCountedAgainstItself() {
        assertThat(store.consume(List.of(permitOf("cc", 1, "a"))).get(0).allowed()).isTrue();
        BucketOutcome again = store.consume(List.of(permitOf("cc", 1, "a"))).get(0);
        assertThat(again.allowed()).as("its own permit, asked again").isTrue();
        assertThat(again.remaining()).isZero();
        assertThat(store.consume(List.of(permitOf("cc", 1, "b"))).get(0).allowed()).as("one permit, held once")
                .isFalse();
        assertThat(store.release(List.of("cc"), "a")).isEqualTo(1);
        assertThat(store.consume(List.of(permitOf("cc", 1, "b"))).get(0).allowed()).isTrue();
    }

    /**
     * A request refused by a rate holds no permit, wherever its buckets and permit sets lie (in Cluster mode the
     * two keys below are in different hash slots, decided by one call each).
     */
    @Test
    void aRequestRefusedByARateLeavesNoPermitTaken() {
        PolicyConfig reports = inFlight("reports", 1);
        PolicyConfig hourly = policy("hourly", 1, HOUR);
        assertThat(redis.clients.jedis.util.JedisClusterCRC16.getSlot(engine.permitKey("reports", "k")))
                .isNotEqualTo(redis.clients.jedis.util.JedisClusterCRC16.getSlot(engine.bucketKey("hourly", "k")));
        take(hourly, "k");
        List<RateLimitDecision> refused = engine.decide(List.of(permitCall(reports, "k", "a"),
                new RateLimitEngine.LimitCall(hourly, "k", 1)));
        assertThat(refused.get(1).allowed()).isFalse();
        assertThat(refused.get(0).remaining()).as("no permit held by the refused request").isEqualTo(1);
        assertThat(engine.decide(List.of(permitCall(reports, "k", "b"))).get(0).allowed())
                .as("the key's one permit is free").isTrue();
    }

    /**
     * A decision whose reply was lost (it ran in the store, the caller timed out) may have taken a permit that no
     * request holds: it is returned in the background, owner-checked.
     */
    @Test
    void aPermitTakenByADecisionWhoseReplyWasLostIsReturned() {
        PolicyConfig reports = inFlight("reports", 1);
        loseNextReply.set(true);
        assertThatThrownBy(() -> engine.decide(List.of(permitCall(reports, "k", "lost"))))
                .isInstanceOf(StoreUnavailableException.class);
        await().atMost(Duration.ofSeconds(10)).until(
                () -> engine.decide(List.of(permitCall(reports, "k", "next"))).get(0).allowed());
        assertThat(store.release(List.of(engine.permitKey("reports", "k")), "lost")).as("gone already").isZero();
    }

    // Local budgets (sluice.limit.<policy>.local-budget). Their ages are an hour here and their clock stands still
    // unless a case moves it, so that only the store's own clock moves; 20/h refills a token every three minutes.

    /** 20 an hour, a burst of 20, a local budget of an hour: a node holds at most 20 tokens of a key. */
    private static PolicyConfig hot() {
        return policy("hot", 20, 20, HOUR).withLocalBudget(3_600_000);
    }

    private RateLimitDecision budgeted(ChargeMode mode, PolicyConfig policy, String key) {
        return budgeted.decide(List.of(new RateLimitEngine.LimitCall(policy, key, 1, mode))).get(0);
    }

    /** What the bucket holds now, asked of the store by a decision that charges nothing. */
    private long leftInTheBucket(PolicyConfig policy, String key) {
        return in(ChargeMode.CHECK, policy.withLocalBudget(0), key).remaining();
    }

    @Test
    void aLocalBudgetPaysForMostRequestsFromTokensReservedInTheSameCallAndNeverAdmitsBeyondTheBucket() {
        PolicyConfig hot = hot();
        int admitted = 0;
        int calls = storeCalls.get();
        for (int i = 0; i < 25; i++) {
            admitted += budgeted(ChargeMode.ENFORCE, hot, "k").allowed() ? 1 : 0;
        }
        assertThat(admitted).as("the bucket's 20, no more").isEqualTo(20);
        // reservations of 0, 1, 3 and 7 beside the requests that found the batch spent, then two refreshes by the
        // requests that spent its last token (14 asked, the 5 left given; then none left); each refusal asks the store
        assertThat(storeCalls.get() - calls).isEqualTo(4 + 2 + 5);
        assertThat(leftInTheBucket(hot, "k")).isZero();
    }

    @Test
    void aRefusalWhileTheNodeHoldsNoTokenIsTheStoresAnswer() {
        PolicyConfig hot = hot();
        for (int i = 0; i < 20; i++) {
            budgeted(ChargeMode.ENFORCE, hot, "k");
        }
        RateLimitDecision refused = budgeted(ChargeMode.ENFORCE, hot, "k");
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.remaining()).isZero();
        assertThat(refused.retryAfterMillis()).isBetween(180_000L - 5_000, 180_000L);
    }

    @Test
    void unspentTokensGoBackToTheBucketWhenTheBudgetsAreReturned() {
        PolicyConfig hot = hot();
        for (int i = 0; i < 5; i++) {
            budgeted(ChargeMode.ENFORCE, hot, "k"); // reserves 0, 1 and 3: the node holds 2 after the fifth
        }
        assertThat(leftInTheBucket(hot, "k")).isEqualTo(20 - 5 - 2);
        int calls = storeCalls.get();
        budgeted.returnLocalBudgets(java.util.Set.of("other"));
        assertThat(storeCalls.get()).as("another policy's budgets only").isEqualTo(calls);
        budgeted.returnLocalBudgets(java.util.Set.of("hot"));
        assertThat(storeCalls.get() - calls).as("one call for the one bucket").isEqualTo(1);
        assertThat(leftInTheBucket(hot, "k")).isEqualTo(20 - 5);
        budgeted.returnLocalBudgets();
        assertThat(leftInTheBucket(hot, "k")).as("returned once").isEqualTo(20 - 5);
    }

    @Test
    void undeployingReturnsTheTokensOfEveryPolicy() {
        PolicyConfig hot = hot();
        PolicyConfig cold = policy("cold", 20, 20, HOUR).withLocalBudget(3_600_000);
        for (int i = 0; i < 5; i++) {
            budgeted(ChargeMode.ENFORCE, hot, "k");
            budgeted(ChargeMode.ENFORCE, cold, "k");
        }
        budgeted.returnLocalBudgets();
        assertThat(leftInTheBucket(hot, "k")).isEqualTo(20 - 5);
        assertThat(leftInTheBucket(cold, "k")).isEqualTo(20 - 5);
    }

    @Test
    void aReturnNeverMakesABucketFullerThanFull() {
        PolicyConfig hot = hot();
        for (int i = 0; i < 5; i++) {
            budgeted(ChargeMode.ENFORCE, hot, "k");
        }
        engine.decide(List.of(new RateLimitEngine.LimitCall(hot.withLocalBudget(0), "k", 2, ChargeMode.REFUND)));
        engine.decide(List.of(new RateLimitEngine.LimitCall(hot.withLocalBudget(0), "k", 5, ChargeMode.REFUND)));
        assertThat(leftInTheBucket(hot, "k")).isEqualTo(20);
        budgeted.returnLocalBudgets();
        assertThat(leftInTheBucket(hot, "k")).isEqualTo(20);
    }

    @Test
    void tokensPastTheirAgeAreDroppedNotSpentNorReturned() {
        PolicyConfig hot = hot();
        for (int i = 0; i < 5; i++) {
            budgeted(ChargeMode.ENFORCE, hot, "k");
        }
        budgetNanos.addAndGet(HOUR.toNanos());
        int calls = storeCalls.get();
        assertThat(budgeted(ChargeMode.ENFORCE, hot, "k").allowed()).isTrue();
        assertThat(storeCalls.get() - calls).as("the node's two tokens are too old: asked of the store").isEqualTo(1);
        budgeted.returnLocalBudgets();
        assertThat(leftInTheBucket(hot, "k")).as("the dropped tokens stay charged").isEqualTo(20 - 6 - 2);
    }

    @Test
    void aRequestRefusedByAnotherPolicyGivesTheTokensItTookBack() {
        PolicyConfig hot = hot();
        PolicyConfig once = policy("once", 1, HOUR);
        List<RateLimitEngine.LimitCall> both = List.of(new RateLimitEngine.LimitCall(hot, "k", 1),
                new RateLimitEngine.LimitCall(once, "k", 1));
        for (int i = 0; i < 4; i++) {
            budgeted(ChargeMode.ENFORCE, hot, "k"); // reserves 0, 1 and 3: the node holds 3 after the fourth
        }
        assertThat(budgeted.decide(both)).allMatch(RateLimitDecision::allowed);
        List<RateLimitDecision> refused = budgeted.decide(both);
        assertThat(refused.get(1).allowed()).isFalse();
        assertThat(refused.get(0).allowed()).as("hot alone would admit").isTrue();
        int calls = storeCalls.get();
        RateLimitDecision next = budgeted(ChargeMode.ENFORCE, hot, "k");
        assertThat(storeCalls.get()).as("paid from the node's tokens").isEqualTo(calls);
        // two held (the refused request's came back) less this one, and the 13 the bucket held after the batch
        assertThat(next.remaining()).isEqualTo(1 + 13);
    }

    @Test
    void aShadowedPolicyWithABudgetNeverRefusesAndPaysFromTheBudget() {
        PolicyConfig hot = hot().withMode(dev.sluice.internal.config.PolicyMode.SHADOW);
        int wouldAdmit = 0;
        for (int i = 0; i < 25; i++) {
            RateLimitDecision d = budgeted(ChargeMode.SHADOW, hot, "k");
            wouldAdmit += d.allowed() ? 1 : 0;
        }
        assertThat(wouldAdmit).as("its own decisions, which refuse no request").isEqualTo(20);
        assertThat(leftInTheBucket(hot, "k")).isZero();
    }

    @Test
    void aCountedPolicyIsCheckedFromTheBudgetAndChargedFromItAfterTheResponse() {
        PolicyConfig hot = hot();
        for (int i = 0; i < 4; i++) {
            budgeted(ChargeMode.ENFORCE, hot, "k"); // the node holds 3
        }
        int calls = storeCalls.get();
        for (int i = 0; i < 5; i++) {
            assertThat(budgeted(ChargeMode.CHECK, hot, "k").allowed()).isTrue();
        }
        for (int i = 0; i < 2; i++) {
            assertThat(budgeted(ChargeMode.CHARGE, hot, "k").allowed()).isTrue();
        }
        assertThat(storeCalls.get()).as("checked and charged from the 3 tokens held").isEqualTo(calls);
        assertThat(budgeted(ChargeMode.CHARGE, hot, "k").allowed()).isTrue();
        assertThat(storeCalls.get() - calls).as("the last token's charge asks for the next batch").isEqualTo(1);
        assertThat(leftInTheBucket(hot, "k")).isLessThanOrEqualTo(20 - 4 - 3);
    }

    @Test
    void aConcurrencyLimitIsDecidedByTheStoreWhileTheRateIsPaidLocally() {
        PolicyConfig hot = new PolicyConfig("hot", hot().bandwidths(), dev.sluice.internal.config.KeySpec.IP, List.of(),
                java.util.Set.of(), 1, true, dev.sluice.internal.config.FailureMode.ALLOW,
                dev.sluice.internal.config.PolicyMode.ENFORCE, dev.sluice.internal.config.CountedStatuses.ALL,
                dev.sluice.internal.config.Exemptions.NONE, 1, 600_000, 3_600_000);
        for (int i = 0; i < 4; i++) {
            List<RateLimitDecision> d = budgeted.decide(List.of(new RateLimitEngine.LimitCall(hot, "k", 1),
                    permitCall(hot, "k", "r" + i)));
            assertThat(d).allMatch(RateLimitDecision::allowed);
            assertThat(store.release(List.of(budgeted.permitKey("hot", "k")), "r" + i)).isEqualTo(1);
        }
        // the node holds 3; the one permit is taken by a request in flight
        assertThat(budgeted.decide(List.of(permitCall(hot, "k", "held"))).get(0).allowed()).isTrue();
        int calls = storeCalls.get();
        List<RateLimitDecision> refused = budgeted.decide(List.of(new RateLimitEngine.LimitCall(hot, "k", 1),
                permitCall(hot, "k", "refused")));
        assertThat(storeCalls.get() - calls).as("the permit is the store's to decide").isEqualTo(1);
        assertThat(refused.get(1).allowed()).isFalse();
        assertThat(refused.get(0).allowed()).isTrue();
        for (int i = 0; i < 2; i++) {
            assertThat(budgeted(ChargeMode.ENFORCE, hot, "k").allowed()).isTrue();
        }
        // without its token back, the second would spend the last one and ask for the next batch
        assertThat(storeCalls.get() - calls).as("the refused request's token came back").isEqualTo(1);
    }
}
