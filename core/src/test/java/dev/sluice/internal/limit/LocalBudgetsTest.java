package dev.sluice.internal.limit;

import dev.sluice.RateLimitDecision;
import dev.sluice.internal.config.PolicyConfig;
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
 * what a node holds, tokens that never outlive their age, and a take that many threads share.
 */
class LocalBudgetsTest {

    /** 1000 tokens a second, a budget of 100 ms: a node holds at most 100 tokens of a key. */
    private static final PolicyConfig HOT = policy("hot", 1_000_000, 1000, Duration.ofSeconds(1)).withLocalBudget(100);
    private static final long MS = 1_000_000;

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final LocalBudgets budgets = new LocalBudgets(LocalBudgets.MAX_KEYS, nanos::get);

    /** A reservation answered by a bucket that gives all it is asked for. */
    private long reserveAndGrant(LocalBudgets.Budget budget) {
        LocalBudgets.Reservation reservation = budgets.reserve(budget, 1);
        assertThat(reservation).isNotNull();
        long granted = reservation.reserve;
        reservation.done(new BucketOutcome(true, 500_000, 0, 0, 1000, granted), admitted(500_000));
        return granted;
    }

    private static RateLimitDecision admitted(long remaining) {
        return RateLimitDecision.of("hot", true, remaining, 1_000_000, 1000, 0, 1000);
    }

    /** Spends every token the budget holds, one request at a time; how many it paid for. */
    private int spendAll(LocalBudgets.Budget budget) {
        int paid = 0;
        while (budgets.take(budget, 1, ChargeMode.ENFORCE) != null) {
            paid++;
        }
        return paid;
    }

    @Test
    void aNodeThatSeesOneRequestAMinuteReservesOnlyThatRequestsToken() {
        LocalBudgets.Budget budget = budgets.budget("sluice:rl:{hot:k}", HOT);
        for (int minute = 0; minute < 5; minute++) {
            assertThat(budgets.take(budget, 1, ChargeMode.ENFORCE)).as("minute %d", minute).isNull();
            assertThat(reserveAndGrant(budget)).as("minute %d", minute).isZero();
            nanos.addAndGet(Duration.ofMinutes(1).toNanos());
        }
    }

    @Test
    void aBusyNodeDoublesItsBatchUpToWhatTheRateGrantsInOneAge() {
        LocalBudgets.Budget budget = budgets.budget("sluice:rl:{hot:k}", HOT);
        List<Long> reserved = new ArrayList<>();
        budgets.take(budget, 1, ChargeMode.ENFORCE); // the first request finds nothing
        for (int i = 0; i < 12; i++) {
            reserved.add(reserveAndGrant(budget));
            nanos.addAndGet(10_000);
            // spends them all; the request after the last finds none and makes the next reservation
            assertThat((long) spendAll(budget)).isEqualTo(reserved.get(i));
        }
        // the first request reserves nothing; then the batch (the reserve and the request's own token) doubles
        assertThat(reserved).startsWith(0L, 1L, 3L, 7L, 15L, 31L, 63L).endsWith(99L, 99L);
        assertThat(reserved).allMatch(r -> r + 1 <= HOT.localBudgetTokens());
    }

    @Test
    void aSteadyRateReservesWhatItUsesInHalfAnAge() {
        LocalBudgets.Budget budget = budgets.budget("sluice:rl:{hot:k}", HOT);
        long reserved = 0;
        for (int i = 0; i < 30; i++) {
            // 200 requests a second: one every 5 ms, each reservation answered at once
            budgets.take(budget, 1, ChargeMode.ENFORCE);
            reserved = reserveAndGrant(budget);
            for (long t = 0; t < reserved; t++) {
                nanos.addAndGet(5 * MS);
                assertThat(budgets.take(budget, 1, ChargeMode.ENFORCE)).isNotNull();
            }
            nanos.addAndGet(5 * MS);
        }
        assertThat(reserved + 1).as("200/s for 50 ms").isBetween(9L, 11L);
    }

    @Test
    void tokensNeverOutliveTheirAgeAndExpiredOnesAreNotReturned() {
        LocalBudgets.Budget budget = budgets.budget("sluice:rl:{hot:k}", HOT);
        budgets.take(budget, 1, ChargeMode.ENFORCE);
        reserveAndGrant(budget);
        nanos.addAndGet(1_000);
        budgets.take(budget, 1, ChargeMode.ENFORCE);
        assertThat(reserveAndGrant(budget)).isEqualTo(1);

        nanos.addAndGet(100 * MS - 1);
        LocalBudgets.Taken last = budgets.take(budget, 1, ChargeMode.ENFORCE);
        assertThat(last).as("one nanosecond before its age").isNotNull();
        last.giveBack();
        nanos.addAndGet(1);
        assertThat(budgets.take(budget, 1, ChargeMode.ENFORCE)).as("at its age").isNull();

        List<Long> returned = new ArrayList<>();
        budgets.returnAll(null, (key, policy, tokens) -> returned.add(tokens));
        assertThat(returned).as("dropped, not returned").isEmpty();
    }

    @Test
    void unspentTokensAreReturnedOncePerBucketAndTheBudgetStartsAfresh() {
        LocalBudgets.Budget budget = budgets.budget("sluice:rl:{hot:a}", HOT);
        LocalBudgets.Budget other = budgets.budget("sluice:rl:{other:a}", policy("other", 1_000_000, 1000,
                Duration.ofSeconds(1)).withLocalBudget(100));
        for (LocalBudgets.Budget b : List.of(budget, other)) {
            budgets.take(b, 1, ChargeMode.ENFORCE);
            reserveAndGrant(b);
            nanos.addAndGet(1_000);
            budgets.take(b, 1, ChargeMode.ENFORCE);
            reserveAndGrant(b);
            budgets.take(b, 1, ChargeMode.ENFORCE);
            nanos.addAndGet(1_000);
            budgets.take(b, 1, ChargeMode.ENFORCE);
            assertThat(reserveAndGrant(b)).isEqualTo(3);
        }
        budgets.take(budget, 1, ChargeMode.ENFORCE);

        Map<String, Long> returned = new HashMap<>();
        budgets.returnAll(Set.of("hot"), (key, policy, tokens) -> returned.merge(key, tokens, Long::sum));
        assertThat(returned).containsExactly(Map.entry("sluice:rl:{hot:a}", 2L));
        assertThat(budgets.take(budget, 1, ChargeMode.ENFORCE)).as("the returned budget holds nothing").isNull();
        assertThat(budgets.budget("sluice:rl:{hot:a}", HOT)).isNotSameAs(budget);
        assertThat(budgets.size()).isEqualTo(2);
    }

    @Test
    void aCheckLooksAtTheTokensWithoutTakingThem() {
        LocalBudgets.Budget budget = budgets.budget("sluice:rl:{hot:k}", HOT);
        budgets.take(budget, 1, ChargeMode.ENFORCE);
        reserveAndGrant(budget);
        nanos.addAndGet(1_000);
        budgets.take(budget, 1, ChargeMode.ENFORCE);
        reserveAndGrant(budget);
        for (int i = 0; i < 3; i++) {
            assertThat(budgets.take(budget, 1, ChargeMode.CHECK)).isNotNull();
        }
        assertThat(spendAll(budget)).isEqualTo(1);
        assertThat(budgets.take(budget, 1, ChargeMode.CHECK)).isNull();
    }

    @Test
    void aLocalAnswerCountsTheNodesTokensAndWhatTheBucketHeldNeverMoreThanTheLimit() {
        LocalBudgets.Budget budget = budgets.budget("sluice:rl:{hot:k}", HOT);
        budgets.take(budget, 1, ChargeMode.ENFORCE);
        reserveAndGrant(budget);
        nanos.addAndGet(1_000);
        budgets.take(budget, 1, ChargeMode.ENFORCE);
        LocalBudgets.Reservation reservation = budgets.reserve(budget, 1);
        RateLimitDecision told = reservation.done(new BucketOutcome(true, 7, 0, 0, 2_000_000, 1),
                RateLimitDecision.of("hot", true, 7, 10, 1, 0, 2000));
        assertThat(told.remaining()).as("7 in the bucket, 1 held").isEqualTo(8);

        nanos.addAndGet(500 * 1_000);
        RateLimitDecision local = budgets.take(budget, 1, ChargeMode.ENFORCE).decision();
        assertThat(local.allowed()).isTrue();
        assertThat(local.remaining()).isEqualTo(7);
        assertThat(local.retryAfterMillis()).isZero();
        assertThat(local.limit()).isEqualTo(10);
        assertThat(local.resetMillis()).isEqualTo(2000 - 0); // less than a millisecond passed

        LocalBudgets.Budget full = budgets.budget("sluice:rl:{hot:full}", HOT);
        budgets.take(full, 1, ChargeMode.ENFORCE);
        budgets.reserve(full, 1).done(new BucketOutcome(true, 0, 0, 0, 0, 0), admitted(0));
        nanos.addAndGet(1_000);
        budgets.take(full, 1, ChargeMode.ENFORCE);
        budgets.reserve(full, 1).done(new BucketOutcome(true, 9, 0, 0, 0, 1),
                RateLimitDecision.of("hot", true, 9, 10, 1, 0, 0));
        assertThat(budgets.take(full, 1, ChargeMode.CHECK).decision().remaining()).as("never above the limit")
                .isEqualTo(10);
    }

    @Test
    void tokensGivenBackDuringAReservationAreDroppedSoTheNodeNeverHoldsMoreThanItsBound() {
        LocalBudgets.Budget budget = budgets.budget("sluice:rl:{hot:k}", HOT);
        budgets.take(budget, 1, ChargeMode.ENFORCE);
        reserveAndGrant(budget);
        nanos.addAndGet(1_000);
        budgets.take(budget, 1, ChargeMode.ENFORCE);
        reserveAndGrant(budget);
        LocalBudgets.Taken inFlight = budgets.take(budget, 1, ChargeMode.ENFORCE);
        assertThat(budgets.take(budget, 1, ChargeMode.ENFORCE)).isNull();

        LocalBudgets.Reservation reservation = budgets.reserve(budget, 1);
        inFlight.giveBack(); // its request was refused while the next batch is being reserved
        reservation.done(new BucketOutcome(true, 0, 0, 0, 0, reservation.reserve), admitted(0));

        assertThat(spendAll(budget)).isEqualTo(reservation.reserve);
        assertThat(reservation.reserve + 1).isLessThanOrEqualTo(HOT.localBudgetTokens());
    }

    @Test
    void aRequestGivenBackWhileNoReservationRunsGetsItsTokenAgain() {
        LocalBudgets.Budget budget = budgets.budget("sluice:rl:{hot:k}", HOT);
        budgets.take(budget, 1, ChargeMode.ENFORCE);
        reserveAndGrant(budget);
        nanos.addAndGet(1_000);
        budgets.take(budget, 1, ChargeMode.ENFORCE);
        reserveAndGrant(budget);
        budgets.take(budget, 1, ChargeMode.ENFORCE).giveBack();
        assertThat(spendAll(budget)).isEqualTo(1);
    }

    @Test
    void onlyOneThreadReservesForAKeyAtATime() {
        LocalBudgets.Budget budget = budgets.budget("sluice:rl:{hot:k}", HOT);
        LocalBudgets.Reservation first = budgets.reserve(budget, 1);
        assertThat(budgets.reserve(budget, 1)).as("decided by Redis alone meanwhile").isNull();
        first.failed();
        assertThat(budgets.reserve(budget, 1)).isNotNull();
    }

    @Test
    void endingAReservationTwiceNeverEndsTheNextOne() {
        LocalBudgets.Budget budget = budgets.budget("sluice:rl:{hot:k}", HOT);
        LocalBudgets.Reservation first = budgets.reserve(budget, 1);
        first.done(new BucketOutcome(true, 0, 0, 0, 0, 0), admitted(0));
        LocalBudgets.Reservation second = budgets.reserve(budget, 1);
        assertThat(second).isNotNull();
        first.failed(); // the engine ends every reservation of a request once more when it is done
        assertThat(budgets.reserve(budget, 1)).as("the second is still in flight").isNull();
        second.failed();
        assertThat(budgets.reserve(budget, 1)).isNotNull();
    }

    @Test
    void noReservationStartsWhileTokensComeBack() {
        LocalBudgets.Budget budget = budgets.budget("sluice:rl:{hot:k}", HOT);
        budget.state.incrementAndGet(); // a request giving its tokens back at this moment
        assertThat(budgets.reserve(budget, 1)).isNull();
        budget.state.decrementAndGet();
        assertThat(budgets.reserve(budget, 1)).isNotNull();
    }

    @Test
    void aPolicyRedefinedWithOtherLimitsStartsAfreshItsOldTokensDropped() {
        LocalBudgets.Budget budget = budgets.budget("sluice:rl:{hot:k}", HOT);
        budgets.take(budget, 1, ChargeMode.ENFORCE);
        reserveAndGrant(budget);
        nanos.addAndGet(1_000);
        budgets.take(budget, 1, ChargeMode.ENFORCE);
        reserveAndGrant(budget);

        assertThat(budgets.budget("sluice:rl:{hot:k}", HOT.withMode(dev.sluice.internal.config.PolicyMode.SHADOW)))
                .as("the same buckets").isSameAs(budget);
        PolicyConfig slower = policy("hot", 1_000_000, 500, Duration.ofSeconds(1)).withLocalBudget(100);
        LocalBudgets.Budget fresh = budgets.budget("sluice:rl:{hot:k}", slower);
        assertThat(fresh).isNotSameAs(budget);
        assertThat(budgets.take(budget, 1, ChargeMode.ENFORCE)).isNull();
        assertThat(budgets.take(fresh, 1, ChargeMode.ENFORCE)).isNull();
    }

    @Test
    void aFullTableDropsBudgetsThatHoldNothingFirst() {
        LocalBudgets small = new LocalBudgets(10, nanos::get);
        LocalBudgets.Budget holding = small.budget("sluice:rl:{hot:holding}", HOT);
        small.take(holding, 1, ChargeMode.ENFORCE);
        small.reserve(holding, 1).done(new BucketOutcome(true, 0, 0, 0, 0, 0), admitted(0));
        nanos.addAndGet(1_000);
        small.take(holding, 1, ChargeMode.ENFORCE);
        small.reserve(holding, 1).done(new BucketOutcome(true, 0, 0, 0, 0, 1), admitted(0));
        for (int i = 0; i < 9; i++) {
            small.budget("sluice:rl:{hot:idle" + i + "}", HOT);
        }
        assertThat(small.size()).isEqualTo(10);
        small.budget("sluice:rl:{hot:new}", HOT);
        assertThat(small.size()).isEqualTo(2);
        assertThat(small.take(holding, 1, ChargeMode.ENFORCE)).as("kept with its token").isNotNull();

        for (int i = 0; i < 20; i++) {
            small.budget("sluice:rl:{hot:more" + i + "}", HOT);
        }
        assertThat(small.size()).isLessThanOrEqualTo(10);
    }

    @Test
    void threadsSharingOneBatchSpendExactlyWhatItHolds() throws Exception {
        LocalBudgets.Budget budget = budgets.budget("sluice:rl:{hot:k}", HOT);
        budgets.take(budget, 1, ChargeMode.ENFORCE);
        reserveAndGrant(budget);
        budgets.take(budget, 1, ChargeMode.ENFORCE);
        // answered with a batch bigger than any bucket would give, so that the threads meet many times on it
        LocalBudgets.Reservation big = budgets.reserve(budget, 1);
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
                    while (budgets.take(budget, 1, ChargeMode.ENFORCE) != null) {
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
