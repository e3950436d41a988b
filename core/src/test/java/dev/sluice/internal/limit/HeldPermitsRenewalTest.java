package dev.sluice.internal.limit;

import dev.sluice.StoreUnavailableException;
import dev.sluice.internal.config.CountedStatuses;
import dev.sluice.internal.config.Exemptions;
import dev.sluice.internal.config.FailureMode;
import dev.sluice.internal.config.KeySpec;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.PolicyMode;
import dev.sluice.internal.limit.RateLimitEngine.LimitCall;
import dev.sluice.internal.lock.ManualScheduler;
import dev.sluice.internal.lease.Watchdog;
import dev.sluice.test.LogCapture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the watchdog does with a request's permits, on a clock and a scheduler the test moves: each permit is
 * renewed every third of its lease and no more often, until the request releases it, the store reports it gone,
 * or it has been held for the longest hold (then one warning, and it runs out). Renewals and returns show as the
 * store calls they make.
 */
class HeldPermitsRenewalTest {

    private static final long LEASE_MILLIS = 300;
    private static final long THIRD_MILLIS = LEASE_MILLIS / 3;

    @RegisterExtension
    final LogCapture log = new LogCapture();

    private final AtomicLong nanos = new AtomicLong(1_000_000_000_000L);
    private final ManualScheduler scheduler = new ManualScheduler();
    private final Watchdog watchdog = scheduler.watchdog(nanos::get);

    /** Renewals asked for, as "key permitId leaseMillis". */
    private final List<String> renewed = new CopyOnWriteArrayList<>();
    /** Returns asked for, as "keys permitId". */
    private final List<String> returned = new CopyOnWriteArrayList<>();
    /** Keys whose permit the store reports gone. */
    private final Map<String, Boolean> gone = new ConcurrentHashMap<>();
    private volatile boolean storeDown;

    private final RateLimitEngine engine = Engines.over(new RateLimitStore() {
        @Override
        public List<BucketOutcome> consume(List<BucketRequest> requests) {
            throw new UnsupportedOperationException();
        }

        @Override
        public int release(List<String> keys, String permitId) {
            returned.add(keys + " " + permitId);
            if (storeDown) {
                throw new StoreUnavailableException("down", null);
            }
            return keys.size();
        }

        @Override
        public boolean renew(String key, String permitId, long leaseMillis) {
            renewed.add(key + " " + permitId + " " + leaseMillis);
            return !gone.containsKey(key);
        }

        @Override
        public void close() {
        }
    }, "sluice");

    @AfterEach
    void stop() {
        watchdog.close();
        scheduler.shutdownNow();
    }

    private static PolicyConfig limited(String name, long leaseMillis) {
        return new PolicyConfig(name, List.of(), KeySpec.IP, List.of(), Set.of(), 1, true, FailureMode.ALLOW,
                PolicyMode.ENFORCE, CountedStatuses.ALL, Exemptions.NONE, 1, leaseMillis);
    }

    private HeldPermits hold(long longestHoldMillis, LimitCall... calls) {
        return HeldPermits.hold(engine, List.of(calls), () -> watchdog, lease -> longestHoldMillis, nanos::get);
    }

    private static LimitCall call(String policy, String id) {
        return LimitCall.concurrency(limited(policy, LEASE_MILLIS), "alice", ChargeMode.CONCURRENCY, id);
    }

    /** Moves the clock by {@code millis} and lets the watchdog run what is due. */
    private void after(long millis) {
        nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
        scheduler.runPending();
    }

    private String key(String policy) {
        return engine.permitKey(policy, "alice");
    }

    @Test
    void eachPermitIsRenewedToItsLeaseEveryThirdOfItAndNoMoreOften() {
        HeldPermits held = hold(60_000, call("reports", "p1"), call("exports", "p1"));
        assertThat(held.keys()).containsExactly(key("reports"), key("exports"));

        after(THIRD_MILLIS / 2);
        assertThat(renewed).as("not yet a third of the lease").isEmpty();
        after(THIRD_MILLIS / 2);
        assertThat(renewed).containsExactlyInAnyOrder(key("reports") + " p1 300", key("exports") + " p1 300");
        for (int i = 0; i < 3; i++) {
            after(THIRD_MILLIS / 2);
        }
        assertThat(renewed).as("two thirds: renewed twice each, not more").hasSize(4);
        assertThat(returned).isEmpty();
    }

    @Test
    void releasingReturnsThePermitsInOneCallOnceAndStopsTheRenewals() {
        HeldPermits held = hold(60_000, call("reports", "p1"), call("exports", "p1"));
        after(THIRD_MILLIS);
        assertThat(renewed).hasSize(2);

        held.release();
        held.release();
        assertThat(returned).containsExactly(List.of(key("reports"), key("exports")) + " p1");
        after(THIRD_MILLIS);
        after(THIRD_MILLIS);
        assertThat(renewed).as("no renewal after the release").hasSize(2);
    }

    @Test
    void aPermitTheStoreReportsGoneIsNoLongerRenewedWhileTheOthersAre() {
        hold(60_000, call("reports", "p1"), call("exports", "p1"));
        gone.put(key("reports"), true);
        after(THIRD_MILLIS);
        after(THIRD_MILLIS);
        after(THIRD_MILLIS);
        assertThat(renewed).filteredOn(r -> r.startsWith(key("reports"))).hasSize(1);
        assertThat(renewed).filteredOn(r -> r.startsWith(key("exports"))).hasSize(3);
    }

    @Test
    void aPermitIsRenewedUpToTheLongestHoldThenOnceWarnedAboutAndLeftToRunOut() {
        hold(10 * THIRD_MILLIS, call("reports", "p1"));
        for (int i = 1; i <= 10; i++) {
            after(THIRD_MILLIS);
        }
        assertThat(renewed).as("renewed while held for up to the longest hold").hasSize(10);
        assertThat(log.records(Level.WARNING, "dev.sluice")).isEmpty();

        for (int i = 0; i < 5; i++) {
            after(THIRD_MILLIS);
        }
        assertThat(renewed).as("not renewed past the longest hold").hasSize(10);
        assertThat(log.records(Level.WARNING, "dev.sluice")).singleElement()
                .satisfies(r -> assertThat(log.text(r)).contains("'reports'", "was held for 1000 ms",
                        "runs out within 300 ms"));
    }

    @Test
    void aStoreThatCannotTakeThePermitsBackLeavesThemToRunOut() {
        HeldPermits held = hold(60_000, call("reports", "p1"));
        storeDown = true;
        held.release();
        assertThat(returned).hasSize(1);
        after(THIRD_MILLIS);
        assertThat(renewed).as("no renewal after the release").isEmpty();
    }

    @Test
    void aReturnTheStoreCannotTakeIsRetriedInTheBackgroundUntilItIsTaken() {
        HeldPermits held = hold(60_000, call("reports", "p1"));
        storeDown = true;
        held.release();
        assertThat(returned).hasSize(1);
        after(THIRD_MILLIS);
        assertThat(returned).as("retried a third of the lease later").hasSize(2);
        storeDown = false;
        after(THIRD_MILLIS);
        assertThat(returned).as("taken at the next try").hasSize(3);
        for (int i = 0; i < 6; i++) {
            after(THIRD_MILLIS);
        }
        assertThat(returned).as("no more tries once taken").hasSize(3);
        assertThat(renewed).isEmpty();
    }

    @Test
    void aReturnTheStoreNeverTakesIsRetriedUntilTheLeaseHasRunOut() {
        HeldPermits held = hold(60_000, call("reports", "p1"));
        storeDown = true;
        held.release();
        for (int i = 0; i < 6; i++) {
            after(THIRD_MILLIS);
        }
        int tries = returned.size();
        assertThat(tries).as("the release and about one try per third of the lease").isBetween(3, 5);
        for (int i = 0; i < 6; i++) {
            after(THIRD_MILLIS);
        }
        assertThat(returned).as("the lease has run out: the permit is gone anyway").hasSize(tries);
    }

    @Test
    void theLongestHoldIsTenLeasesAndAtLeastTenMinutes() {
        assertThat(HeldPermits.longestHoldMillis(30_000)).isEqualTo(600_000);
        assertThat(HeldPermits.longestHoldMillis(120_000)).isEqualTo(1_200_000);
    }

    @Test
    void permitsOfOneRequestShareOneIdAndNoneHoldsNothing() {
        assertThatThrownBy(() -> hold(60_000, call("reports", "p1"), call("exports", "p2")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("two ids");
        assertThat(hold(60_000)).isSameAs(HeldPermits.NONE);
        HeldPermits.NONE.release();
        assertThat(HeldPermits.NONE.keys()).isEmpty();
        assertThat(returned).isEmpty();
    }
}
