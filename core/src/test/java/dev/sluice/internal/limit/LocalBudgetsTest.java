package dev.sluice.internal.limit;

import dev.sluice.RateLimitDecision;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.PolicyMode;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static dev.sluice.internal.limit.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A node's local budgets on their own, on a controlled clock: batches that adapt to the node's rate, the bound on
 * what a node holds, tokens that never outlive their age, and a take that many threads share. Reservations here are
 * answered by a bucket that gives all it is asked for.
 */
class LocalBudgetsTest {

    /** 1000 tokens a second, a budget of 100 ms: a node holds at most 100 tokens of a key. */
    private static final PolicyConfig HOT = policy("hot", 1_000_000, 1000, Duration.ofSeconds(1)).withLocalBudget(100);
    private static final long MS = 1_000_000;

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final LocalBudgets budgets = new LocalBudgets(LocalBudgets.MAX_KEYS, nanos::get);
    /** The reserves asked, in order. */
    private final List<Long> reserves = new ArrayList<>();

    private static RateLimitDecision admitted(long remaining) {
        return RateLimitDecision.of("hot", true, remaining, 1_000_000, 1000, 0, 1000);
    }

    private long grant(LocalBudgets.Reservation reservation) {
        reserves.add(reservation.reserve);
        reservation.done(new BucketOutcome(true, 500_000, 0, 0, 1000, reservation.reserve), admitted(500_000));
        return reservation.reserve;
    }

    /**
     * One request of one token: true when the node paid for it, false when the store decided it. A reservation it
     * makes (of the next batch, or beside its own decision) is granted in full.
     */
    private boolean request(LocalBudgets.Budget budget) {
        LocalBudgets.Claim claim = budgets.claim(budget, 1, ChargeMode.ENFORCE);
        if (claim instanceof LocalBudgets.Taken taken) {
            if (taken.refresh() != null) {
                grant(taken.refresh());
            }
            return true;
        }
        if (claim instanceof LocalBudgets.Reservation reservation) {
            grant(reservation);
        }
        return false;
    }

    /** Requests until the node has a batch: the first reserves nothing, the second one token. */
    private LocalBudgets.Budget holdingOne(String key, LocalBudgets into) {
        LocalBudgets.Budget budget = into.budget(key, HOT);
        ((LocalBudgets.Reservation) into.claim(budget, 1, ChargeMode.ENFORCE)).done(
                new BucketOutcome(true, 0, 0, 0, 0, 0), admitted(0));
        nanos.addAndGet(1_000);
        LocalBudgets.Reservation second = (LocalBudgets.Reservation) into.claim(budget, 1, ChargeMode.ENFORCE);
        assertThat(second.reserve).isEqualTo(1);
        second.done(new BucketOutcome(true, 0, 0, 0, 0, 1), admitted(0));
        return budget;
    }

    @Test
    void aNodeThatSeesOneRequestAMinuteReservesOnlyThatRequestsToken() {
        LocalBudgets.Budget budget = budgets.budget("sluice:rl:{hot:k}", HOT);
        for (int minute = 0; minute < 5; minute++) {
            assertThat(request(budget)).as("minute %d: decided by the store", minute).isFalse();
            nanos.addAndGet(Duration.ofMinutes(1).toNanos());
        }
        assertThat(reserves).containsOnly(0L);
    }

    @Test
    void aBusyNodeDoublesItsBatchUpToTheBoundThenRefreshesItBeforeItRunsDry() {
        LocalBudgets.Budget budget = budgets.budget("sluice:rl:{hot:k}", HOT);
        int decidedByTheStore = 0;
        for (int i = 0; i < 5_000; i++) {
            decidedByTheStore += request(budget) ? 0 : 1;
            nanos.addAndGet(10_000);
        }
        // the first request reserves nothing, then 1 and 3 beside the requests that found the batch spent; from then
        // on each batch is asked for by the request that leaves the one before half spent, and about doubles
        assertThat(reserves).startsWith(0L, 1L, 3L, 6L, 10L, 20L, 39L);
        assertThat(decidedByTheStore).isEqualTo(3);
        assertThat(reserves).allMatch(r -> r <= HOT.localBudgetTokens());
        assertThat(reserves.get(reserves.size() - 1)).as("the bound less what is still held").isGreaterThan(60);
    }

    @Test
    void aSteadyRateReservesWhatItUsesInHalfAnAge() {
        LocalBudgets.Budget budget = budgets.budget("sluice:rl:{hot:k}", HOT);
        for (int i = 0; i < 2_000; i++) {
            request(budget); // 200 requests a second
            nanos.addAndGet(5 * MS);
        }
        assertThat(reserves.subList(reserves.size() - 10, reserves.size())).as("200/s for 50 ms")
                .allMatch(r -> r >= 8 && r <= 12);
    }

    @Test
    void tokensNeverOutliveTheirAgeAndExpiredOnesAreNotReturned() {
        LocalBudgets.Budget budget = holdingOne("sluice:rl:{hot:k}", budgets);
        nanos.addAndGet(100 * MS - 1);
        LocalBudgets.Claim last = budgets.claim(budget, 1, ChargeMode.ENFORCE);
        assertThat(last).as("one nanosecond before its age").isInstanceOf(LocalBudgets.Taken.class);
        ((LocalBudgets.Taken) last).giveBack();
        nanos.addAndGet(1);
        LocalBudgets.Claim tooOld = budgets.claim(budget, 1, ChargeMode.ENFORCE);
        assertThat(tooOld).as("at its age: decided by the store").isInstanceOf(LocalBudgets.Reservation.class);
        ((LocalBudgets.Reservation) tooOld).failed();

        List<Long> returned = new ArrayList<>();
        budgets.returnAll(null, (key, policy, tokens) -> returned.add(tokens));
        assertThat(returned).as("dropped, not returned").isEmpty();
    }

    @Test
    void unspentTokensAreReturnedOncePerBucketAndTheBudgetStartsAfresh() {
        LocalBudgets.Budget budget = holdingOne("sluice:rl:{hot:a}", budgets);
        holdingOne("sluice:rl:{hot:b}", budgets);
        LocalBudgets.Budget other = budgets.budget("sluice:rl:{other:a}",
                policy("other", 1_000_000, 1000, Duration.ofSeconds(1)).withLocalBudget(100));
        request(other);
        nanos.addAndGet(1_000);
        request(other);

        Map<String, Long> returned = new HashMap<>();
        budgets.returnAll(Set.of("hot"), (key, policy, tokens) -> returned.merge(key, tokens, Long::sum));
        assertThat(returned).containsOnly(Map.entry("sluice:rl:{hot:a}", 1L), Map.entry("sluice:rl:{hot:b}", 1L));
        assertThat(budgets.claim(budget, 1, ChargeMode.ENFORCE)).as("the returned budget holds nothing")
                .isNotInstanceOf(LocalBudgets.Taken.class);
        assertThat(budgets.budget("sluice:rl:{hot:a}", HOT)).isNotSameAs(budget);
        assertThat(budgets.size()).isEqualTo(2);
    }

    @Test
    void aCheckLooksAtTheTokensWithoutTakingThem() {
        LocalBudgets.Budget budget = holdingOne("sluice:rl:{hot:k}", budgets);
        for (int i = 0; i < 3; i++) {
            assertThat(budgets.claim(budget, 1, ChargeMode.CHECK)).isInstanceOf(LocalBudgets.Taken.class);
        }
        assertThat(budgets.claim(budget, 1, ChargeMode.CHARGE)).isInstanceOf(LocalBudgets.Taken.class);
        assertThat(budgets.claim(budget, 1, ChargeMode.CHECK)).isNotInstanceOf(LocalBudgets.Taken.class);
    }

    @Test
    void aLocalAnswerCountsTheNodesTokensAndWhatTheBucketHeldNeverMoreThanTheLimit() {
        LocalBudgets.Budget budget = budgets.budget("sluice:rl:{hot:k}", HOT);
        request(budget);
        nanos.addAndGet(1_000);
        LocalBudgets.Reservation reservation = (LocalBudgets.Reservation) budgets.claim(budget, 1, ChargeMode.ENFORCE);
        RateLimitDecision told = reservation.done(new BucketOutcome(true, 7, 0, 0, 2_000_000, 1),
                RateLimitDecision.of("hot", true, 7, 10, 1, 0, 2000));
        assertThat(told.remaining()).as("7 in the bucket, 1 held").isEqualTo(8);
        assertThat(told.retryAfterMillis()).isZero();

        nanos.addAndGet(500 * 1_000);
        RateLimitDecision local = ((LocalBudgets.Taken) budgets.claim(budget, 1, ChargeMode.ENFORCE)).decision();
        assertThat(local.allowed()).isTrue();
        assertThat(local.remaining()).isEqualTo(7);
        assertThat(local.retryAfterMillis()).isZero();
        assertThat(local.limit()).isEqualTo(10);
        assertThat(local.windowSeconds()).isEqualTo(1);
        assertThat(local.resetMillis()).as("less than a millisecond passed").isEqualTo(2000);

        nanos.addAndGet(1_500 * MS);
        LocalBudgets.Budget full = budgets.budget("sluice:rl:{hot:full}", HOT);
        request(full);
        nanos.addAndGet(1_000);
        ((LocalBudgets.Reservation) budgets.claim(full, 1, ChargeMode.ENFORCE)).done(
                new BucketOutcome(true, 9, 0, 0, 0, 1), RateLimitDecision.of("hot", true, 9, 10, 1, 0, 0));
        assertThat(((LocalBudgets.Taken) budgets.claim(full, 1, ChargeMode.CHECK)).decision().remaining())
                .as("never above the limit").isEqualTo(10);
    }

    @Test
    void aLocalAnswerWithNoTokenLeftAnywhereTellsTheWaitRedisToldCountingDown() {
        LocalBudgets.Budget budget = budgets.budget("sluice:rl:{hot:k}", HOT);
        request(budget);
        nanos.addAndGet(1_000);
        ((LocalBudgets.Reservation) budgets.claim(budget, 1, ChargeMode.ENFORCE)).done(
                new BucketOutcome(true, 0, 0, 40_000, 90_000, 1), RateLimitDecision.of("hot", true, 0, 10, 1, 40, 90));
        nanos.addAndGet(15 * MS);
        RateLimitDecision local = ((LocalBudgets.Taken) budgets.claim(budget, 1, ChargeMode.ENFORCE)).decision();
        assertThat(local.remaining()).isZero();
        assertThat(local.retryAfterMillis()).isEqualTo(25);
        assertThat(local.resetMillis()).isEqualTo(75);
    }

    @Test
    void tokensGivenBackDuringAReservationAreDroppedSoTheNodeNeverHoldsMoreThanItsBound() {
        LocalBudgets.Budget budget = holdingOne("sluice:rl:{hot:k}", budgets);
        LocalBudgets.Taken inFlight = (LocalBudgets.Taken) budgets.claim(budget, 1, ChargeMode.ENFORCE);
        LocalBudgets.Reservation next = (LocalBudgets.Reservation) budgets.claim(budget, 1, ChargeMode.ENFORCE);
        inFlight.giveBack(); // its request was refused while the next batch is being reserved
        next.done(new BucketOutcome(true, 0, 0, 0, 0, next.reserve), admitted(0));

        int paid = 0;
        while (budgets.claim(budget, 1, ChargeMode.ENFORCE) instanceof LocalBudgets.Taken) {
            paid++;
        }
        assertThat(paid).as("the new batch, without the token given back").isEqualTo(next.reserve);
    }

    @Test
    void aRequestGivenBackWhileNoReservationRunsGetsItsTokenAgain() {
        LocalBudgets.Budget budget = holdingOne("sluice:rl:{hot:k}", budgets);
        ((LocalBudgets.Taken) budgets.claim(budget, 1, ChargeMode.ENFORCE)).giveBack();
        assertThat(budgets.claim(budget, 1, ChargeMode.ENFORCE)).isInstanceOf(LocalBudgets.Taken.class);
    }

    @Test
    void onlyOneThreadReservesForAKeyAtATime() {
        LocalBudgets.Budget budget = budgets.budget("sluice:rl:{hot:k}", HOT);
        LocalBudgets.Reservation first = (LocalBudgets.Reservation) budgets.claim(budget, 1, ChargeMode.ENFORCE);
        assertThat(budgets.claim(budget, 1, ChargeMode.ENFORCE)).as("decided by Redis alone meanwhile").isNull();
        first.failed();
        assertThat(budgets.claim(budget, 1, ChargeMode.ENFORCE)).isInstanceOf(LocalBudgets.Reservation.class);
    }

    @Test
    void endingAReservationTwiceNeverEndsTheNextOne() {
        LocalBudgets.Budget budget = budgets.budget("sluice:rl:{hot:k}", HOT);
        LocalBudgets.Reservation first = (LocalBudgets.Reservation) budgets.claim(budget, 1, ChargeMode.ENFORCE);
        first.done(new BucketOutcome(true, 0, 0, 0, 0, 0), admitted(0));
        LocalBudgets.Reservation second = (LocalBudgets.Reservation) budgets.claim(budget, 1, ChargeMode.ENFORCE);
        assertThat(second).isNotNull();
        first.failed(); // the engine ends every reservation of a request once more when it is done
        assertThat(budgets.claim(budget, 1, ChargeMode.ENFORCE)).as("the second is still in flight").isNull();
        second.failed();
        assertThat(budgets.claim(budget, 1, ChargeMode.ENFORCE)).isInstanceOf(LocalBudgets.Reservation.class);
    }

    @Test
    void noReservationStartsWhileTokensComeBack() {
        LocalBudgets.Budget budget = budgets.budget("sluice:rl:{hot:k}", HOT);
        budget.state.incrementAndGet(); // a request giving its tokens back at this moment
        assertThat(budgets.claim(budget, 1, ChargeMode.ENFORCE)).isNull();
        budget.state.decrementAndGet();
        assertThat(budgets.claim(budget, 1, ChargeMode.ENFORCE)).isInstanceOf(LocalBudgets.Reservation.class);
    }

    @Test
    void aReservationNeverLetsTheNodeHoldMoreThanItsBound() {
        PolicyConfig small = policy("hot", 1_000_000, 1000, Duration.ofSeconds(1)).withLocalBudget(10);
        LocalBudgets.Budget budget = budgets.budget("sluice:rl:{hot:k}", small);
        long most = 0;
        for (int i = 0; i < 1_000; i++) {
            LocalBudgets.Claim claim = budgets.claim(budget, 1, ChargeMode.ENFORCE);
            long held = budget.batch == null || !budget.batch.liveAt(nanos.get()) ? 0 : budget.batch.left.get();
            LocalBudgets.Reservation r = claim instanceof LocalBudgets.Taken t ? t.refresh()
                    : (LocalBudgets.Reservation) claim;
            if (r != null) {
                most = Math.max(most, held + r.reserve);
                grant(r);
            }
            nanos.addAndGet(1_000);
        }
        assertThat(small.localBudgetTokens()).isEqualTo(10);
        assertThat(most).isEqualTo(10);
    }

    @Test
    void aPolicyRedefinedWithOtherLimitsStartsAfreshItsOldTokensDropped() {
        LocalBudgets.Budget budget = holdingOne("sluice:rl:{hot:k}", budgets);
        assertThat(budgets.budget("sluice:rl:{hot:k}", HOT.withMode(PolicyMode.SHADOW))).as("the same buckets")
                .isSameAs(budget);
        PolicyConfig slower = policy("hot", 1_000_000, 500, Duration.ofSeconds(1)).withLocalBudget(100);
        LocalBudgets.Budget fresh = budgets.budget("sluice:rl:{hot:k}", slower);
        assertThat(fresh).isNotSameAs(budget);
        assertThat(budgets.claim(budget, 1, ChargeMode.ENFORCE)).isNotInstanceOf(LocalBudgets.Taken.class);
        assertThat(budgets.claim(fresh, 1, ChargeMode.ENFORCE)).isNotInstanceOf(LocalBudgets.Taken.class);
    }

    @Test
    void aFullTableDropsBudgetsThatHoldNothingFirst() {
        LocalBudgets small = new LocalBudgets(10, nanos::get);
        LocalBudgets.Budget holding = holdingOne("sluice:rl:{hot:holding}", small);
        for (int i = 0; i < 9; i++) {
            small.budget("sluice:rl:{hot:idle" + i + "}", HOT);
        }
        assertThat(small.size()).isEqualTo(10);
        small.budget("sluice:rl:{hot:new}", HOT);
        assertThat(small.size()).isEqualTo(2);
        assertThat(small.claim(holding, 1, ChargeMode.ENFORCE)).as("kept with its token")
                .isInstanceOf(LocalBudgets.Taken.class);

        for (int i = 0; i < 20; i++) {
            small.budget("sluice:rl:{hot:more" + i + "}", HOT);
        }
        assertThat(small.size()).isLessThanOrEqualTo(10);
    }

    @Test
    void aBatchReplacedByARefreshIsSpentFirstAndOnlyWithinItsOwnAge() {
        LocalBudgets.Budget budget = budgets.budget("sluice:rl:{hot:k}", HOT);
        for (int i = 0; i < 11; i++) {
            request(budget); // reservations of 0, 1, 3, 6 and, by the eleventh, 10
            nanos.addAndGet(1_000);
        }
        assertThat(reserves).containsExactly(0L, 1L, 3L, 6L, 10L);
        LocalBudgets.Batch older = budget.batch.previous;
        LocalBudgets.Batch newer = budget.batch;
        assertThat(older.left.get()).as("the 6-token batch, refreshed at 2 left").isEqualTo(2);
        assertThat(((LocalBudgets.Taken) budgets.claim(budget, 1, ChargeMode.CHECK)).batch()).isSameAs(older);
        assertThat(older.left.get()).as("a check takes nothing").isEqualTo(2);
        assertThat(((LocalBudgets.Taken) budgets.claim(budget, 1, ChargeMode.ENFORCE)).batch()).isSameAs(older);
        nanos.set(older.expiresAt);
        assertThat(((LocalBudgets.Taken) budgets.claim(budget, 1, ChargeMode.ENFORCE)).batch())
                .as("the older one's last token is too old").isSameAs(newer);
        assertThat(older.left.get()).isEqualTo(1);
        assertThat(budget.holdsNothingLive(nanos.get())).isFalse();
        nanos.set(newer.expiresAt);
        assertThat(budget.holdsNothingLive(nanos.get())).isTrue();
    }

    @Test
    void aBudgetWhoseTokensAreSpentOrThatIsReservingIsToldApart() {
        LocalBudgets.Budget budget = holdingOne("sluice:rl:{hot:k}", budgets);
        assertThat(budget.holdsNothingLive(nanos.get())).isFalse();
        budgets.claim(budget, 1, ChargeMode.ENFORCE);
        assertThat(budget.holdsNothingLive(nanos.get())).as("spent").isTrue();
        LocalBudgets.Claim reserving = budgets.claim(budget, 1, ChargeMode.ENFORCE);
        assertThat(budget.holdsNothingLive(nanos.get())).as("a batch on its way").isFalse();
        ((LocalBudgets.Reservation) reserving).failed();
    }

    @Test
    void aFullTableOfBudgetsThatAllHoldTokensDropsSomeOfThem() {
        LocalBudgets small = new LocalBudgets(10, nanos::get);
        List<LocalBudgets.Budget> holding = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            holding.add(holdingOne("sluice:rl:{hot:" + i + "}", small));
        }
        small.budget("sluice:rl:{hot:new}", HOT);
        assertThat(small.size()).isEqualTo(10 - 1 + 1);
        assertThat(holding.stream().filter(b -> b.holdsNothingLive(nanos.get()))).as("its tokens dropped").hasSize(1);
    }

    @Test
    void threadsSharingOneBatchSpendExactlyWhatItHolds() throws Exception {
        LocalBudgets.Budget budget = holdingOne("sluice:rl:{hot:k}", budgets);
        budgets.claim(budget, 1, ChargeMode.ENFORCE);
        // answered with a batch bigger than any bucket would give, so that the threads meet many times on it
        LocalBudgets.Reservation big = (LocalBudgets.Reservation) budgets.claim(budget, 1, ChargeMode.ENFORCE);
        big.done(new BucketOutcome(true, 0, 0, 0, 0, 200_000), admitted(0));

        int threads = 8;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Integer>> paid = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                paid.add(pool.submit(() -> {
                    start.await();
                    int n = 0;
                    // the refresh one of them starts near the end is never answered: nobody waits for it
                    while (budgets.claim(budget, 1, ChargeMode.ENFORCE) instanceof LocalBudgets.Taken) {
                        n++;
                    }
                    return n;
                }));
            }
            long total = 0;
            for (Future<Integer> f : paid) {
                total += f.get(1, TimeUnit.MINUTES);
            }
            assertThat(total).isEqualTo(200_000);
        } finally {
            pool.shutdownNow();
        }
    }
}
