package dev.sluice.internal.limit;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The in-process store's answers field by field, on a controlled clock: concurrency permits (taking, refusing,
 * the waits and resets they report, leases running out to the millisecond, renewing, returning), how each
 * {@link ChargeMode} of a rate policy charges and reports, and the store's own bookkeeping (bucket expiry with a
 * fractional TAT, sweeping, closing).
 */
class InProcessPermitsAndModesTest {

    private static final long SECOND = 1_000_000L;

    private final AtomicLong micros = new AtomicLong(1_700_000_000_000_000L);
    private final InProcessRateLimitStore store = new InProcessRateLimitStore(micros::get);

    private void advanceMillis(long millis) {
        micros.addAndGet(millis * 1000);
    }

    private static BucketRequest permit(String key, ChargeMode mode, int permits, String id) {
        return BucketRequest.permits(key, mode, new BucketRequest.Permit(permits, 1000, id));
    }

    private static BucketRequest rate(String key, ChargeMode mode, long capacity) {
        return new BucketRequest(key, 1, List.of(BucketRequest.Limit.ofMicros(SECOND, capacity)), mode);
    }

    private BucketOutcome one(BucketRequest request) {
        return store.consume(List.of(request)).get(0);
    }

    @Test
    void aPermitReportsTheFreePermitsTheEarliestLeaseEndOnceFullAndTheLatestAsReset() {
        BucketOutcome first = one(permit("cc", ChargeMode.CONCURRENCY, 2, "a"));
        assertThat(first).isEqualTo(new BucketOutcome(true, 1, 0, 0, 1000 * 1000L));

        advanceMillis(100);
        BucketOutcome second = one(permit("cc", ChargeMode.CONCURRENCY, 2, "b"));
        // full now: the wait is until a's lease runs out, the reset until b's does
        assertThat(second).isEqualTo(new BucketOutcome(true, 0, 0, 900 * 1000L, 1000 * 1000L));

        advanceMillis(100);
        BucketOutcome refused = one(permit("cc", ChargeMode.CONCURRENCY, 2, "c"));
        assertThat(refused).isEqualTo(new BucketOutcome(false, 0, 0, 800 * 1000L, 900 * 1000L));
    }

    @Test
    void aLeaseRunsOutAtItsLastMillisecond() {
        one(permit("cc", ChargeMode.CONCURRENCY, 1, "a"));
        advanceMillis(999);
        assertThat(one(permit("cc", ChargeMode.CONCURRENCY, 1, "b")).allowed()).isFalse();
        assertThat(store.renew("cc", "a", 1000)).as("still held one millisecond before").isTrue();
        advanceMillis(1000);
        assertThat(store.renew("cc", "a", 1000)).as("renewed to the millisecond, not beyond").isFalse();
        assertThat(one(permit("cc", ChargeMode.CONCURRENCY, 1, "b")).allowed()).isTrue();
    }

    @Test
    void aRenewedPermitKeepsItsKeyBusyForANewLease() {
        one(permit("cc", ChargeMode.CONCURRENCY, 1, "a"));
        advanceMillis(900);
        assertThat(store.renew("cc", "a", 1000)).isTrue();
        advanceMillis(900);
        BucketOutcome refused = one(permit("cc", ChargeMode.CONCURRENCY, 1, "b"));
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.waitMicros()).isEqualTo(100 * 1000L);
        assertThat(store.renew("cc", "nobody", 1000)).isFalse();
        assertThat(store.renew("unknown", "a", 1000)).isFalse();
    }

    @Test
    void releasingCountsThePermitsStillHeldAndFreesTheirKeys() {
        one(permit("x", ChargeMode.CONCURRENCY, 1, "a"));
        one(permit("y", ChargeMode.CONCURRENCY, 1, "a"));
        assertThat(store.release(List.of("x", "y", "z"), "a")).isEqualTo(2);
        assertThat(one(permit("x", ChargeMode.CONCURRENCY, 1, "b")).allowed()).isTrue();
        assertThat(one(permit("y", ChargeMode.CONCURRENCY, 1, "b")).allowed()).isTrue();
        assertThat(store.release(List.of("x"), "a")).as("already returned").isZero();
    }

    @Test
    void aPermitWhoseLeaseRanOutIsNotCountedAsHeldOnRelease() {
        one(permit("x", ChargeMode.CONCURRENCY, 1, "a"));
        one(permit("y", ChargeMode.CONCURRENCY, 1, "b"));
        advanceMillis(1000);
        assertThat(store.release(List.of("x"), "a")).isZero();
        advanceMillis(-1);
        assertThat(store.release(List.of("y"), "b")).isEqualTo(1);
    }

    @Test
    void aShadowedConcurrencyLimitTakesAPermitOnlyWhenOneIsFree() {
        one(permit("cc", ChargeMode.CONCURRENCY, 1, "a"));
        BucketOutcome shadow = one(permit("cc", ChargeMode.SHADOW_CONCURRENCY, 1, "b"));
        assertThat(shadow.allowed()).isFalse();
        assertThat(store.release(List.of("cc"), "b")).as("b took nothing").isZero();
        assertThat(store.release(List.of("cc"), "a")).isEqualTo(1);
    }

    @Test
    void aPermitIsNotTakenWhenAnotherPolicyRefusesTheRequest() {
        one(rate("rl", ChargeMode.ENFORCE, 1));
        List<BucketOutcome> outcomes = store.consume(List.of(rate("rl", ChargeMode.ENFORCE, 1),
                permit("cc", ChargeMode.CONCURRENCY, 3, "a")));
        assertThat(outcomes.get(0).allowed()).isFalse();
        // the permit limit would admit, but took nothing: every permit is free and nothing runs out
        assertThat(outcomes.get(1)).isEqualTo(new BucketOutcome(true, 3, 0, 0, 0));
        assertThat(store.release(List.of("cc"), "a")).isZero();
    }

    @Test
    void aCheckReportsWithoutChargingAndARefusingCheckRefusesTheOthers() {
        BucketOutcome check = one(rate("rl", ChargeMode.CHECK, 3));
        assertThat(check).isEqualTo(new BucketOutcome(true, 3, 0, 0, 0));
        BucketOutcome enforced = one(rate("rl", ChargeMode.ENFORCE, 3));
        assertThat(enforced.remaining()).as("the check took nothing").isEqualTo(2);
        BucketOutcome shadowCheck = one(rate("rl", ChargeMode.SHADOW_CHECK, 3));
        assertThat(shadowCheck.remaining()).isEqualTo(2);
        assertThat(shadowCheck.resetMicros()).isEqualTo(SECOND);
    }

    @Test
    void chargesAfterResponsesEmptyTheBucketButNeverPastEmpty() {
        for (int i = 0; i < 5; i++) {
            BucketOutcome charged = one(rate("rl", ChargeMode.CHARGE, 2));
            assertThat(charged.allowed()).isTrue();
        }
        BucketOutcome refused = one(rate("rl", ChargeMode.ENFORCE, 2));
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.waitMicros()).as("one token's time, not four").isEqualTo(SECOND);
        advanceMillis(1000);
        assertThat(one(rate("rl", ChargeMode.ENFORCE, 2)).allowed()).isTrue();
    }

    @Test
    void aChargeOnAnEmptyBucketStoresItEmptyNotBeyond() {
        for (int i = 0; i < 3; i++) {
            one(rate("rl", ChargeMode.CHARGE, 2));
        }
        advanceMillis(1000);
        assertThat(one(rate("rl", ChargeMode.ENFORCE, 2)).allowed()).as("one token back after one interval").isTrue();
    }

    @Test
    void aLeaseEndingThisMillisecondFreesItsPermitForTheNextRequest() {
        one(permit("cc", ChargeMode.CONCURRENCY, 1, "a"));
        advanceMillis(1000);
        BucketOutcome next = one(permit("cc", ChargeMode.CONCURRENCY, 1, "b"));
        assertThat(next.allowed()).isTrue();
        assertThat(next.remaining()).isZero();
    }

    @Test
    void sweepingKeepsPermitsWhoseLeaseRunsAndDropsThoseThatRanOut() {
        one(permit("live", ChargeMode.CONCURRENCY, 1, "a"));
        one(permit("old", ChargeMode.CONCURRENCY, 1, "a"));
        advanceMillis(500);
        assertThat(store.renew("live", "a", 1000)).isTrue();
        advanceMillis(600);
        for (int i = 3; i < 4096; i++) {
            one(rate("rl", ChargeMode.ENFORCE, 1_000_000));
        }
        assertThat(one(permit("live", ChargeMode.CONCURRENCY, 1, "b")).allowed()).as("still held by a").isFalse();
        assertThat(one(permit("old", ChargeMode.CONCURRENCY, 1, "b")).allowed()).isTrue();
    }

    @Test
    void aCheckOnABucketFullerThanItsLimitStoresItClampedToTheLimit() {
        // a bucket drained under a capacity of 10, then checked under a capacity of 2 (the limit shrank)
        for (int i = 0; i < 10; i++) {
            one(rate("rl", ChargeMode.ENFORCE, 10));
        }
        one(rate("rl", ChargeMode.CHECK, 2));
        // back under 10: the bucket is as empty as the smaller limit allows, 2 s of tokens, not 10
        BucketOutcome enforced = one(rate("rl", ChargeMode.ENFORCE, 10));
        assertThat(enforced.allowed()).isTrue();
        assertThat(enforced.remaining()).isEqualTo(7);
    }

    @Test
    void theTightestOfTwoEquallyFullBandwidthsIsTheFirst() {
        BucketRequest request = new BucketRequest("rl", 1, List.of(BucketRequest.Limit.ofMicros(SECOND, 5),
                BucketRequest.Limit.ofMicros(2 * SECOND, 5)), ChargeMode.ENFORCE);
        BucketOutcome outcome = one(request);
        assertThat(outcome.remaining()).isEqualTo(4);
        assertThat(outcome.tightest()).isZero();
        assertThat(outcome.resetMicros()).isEqualTo(SECOND);
    }

    @Test
    void aBucketWhoseTatHasAFractionOfAMicrosecondLastsUntilTheNextMillisecondAfterIt() {
        // a token every 1000⅓ µs: after one token, the TAT is 1000 µs and one third ahead
        BucketRequest request = new BucketRequest("rl", 1, List.of(new BucketRequest.Limit(3001, 3, 3)),
                ChargeMode.ENFORCE);
        assertThat(one(request).remaining()).isEqualTo(2);
        advanceMillis(1);
        // a third of a microsecond is still owed: not full again
        assertThat(one(request).remaining()).isEqualTo(1);
    }

    @Test
    void expiredBucketsAreSweptEvery4096Decisions() {
        for (int i = 0; i < 10; i++) {
            one(rate("old" + i, ChargeMode.ENFORCE, 1));
        }
        advanceMillis(2000);
        for (int i = 10; i < 4095; i++) {
            one(rate("live", ChargeMode.ENFORCE, 1_000_000));
        }
        assertThat(store.size()).as("not yet swept").isEqualTo(11);
        one(rate("live", ChargeMode.ENFORCE, 1_000_000));
        assertThat(store.size()).isEqualTo(1);
    }

    @Test
    void aBucketAtItsExactExpiryIsSweptAndOneJustBeforeIsKept() {
        one(rate("a", ChargeMode.ENFORCE, 1));
        advanceMillis(1);
        one(rate("b", ChargeMode.ENFORCE, 1));
        advanceMillis(999);
        for (int i = 2; i < 4096; i++) {
            one(rate("live", ChargeMode.ENFORCE, 1_000_000));
        }
        assertThat(store.size()).as("a expired at this microsecond, b one millisecond later").isEqualTo(2);
    }

    @Test
    void closingForgetsEveryBucketAndPermit() {
        one(rate("rl", ChargeMode.ENFORCE, 1));
        one(permit("cc", ChargeMode.CONCURRENCY, 1, "a"));
        store.close();
        assertThat(store.size()).isZero();
        assertThat(one(rate("rl", ChargeMode.ENFORCE, 1)).allowed()).isTrue();
        assertThat(one(permit("cc", ChargeMode.CONCURRENCY, 1, "b")).allowed()).isTrue();
    }
}
