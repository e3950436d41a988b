package dev.sluice.internal.lock;

import dev.sluice.internal.lease.Lease;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A holder's view of its lease, on a clock the test moves: until when it is held, and when it is lost. */
class LeaseTest {

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final AtomicInteger lostReports = new AtomicInteger();

    private Lease lease(long millis, java.util.function.LongUnaryOperator validity) {
        return new Lease(now::get, now.get(), millis, validity, lostReports::incrementAndGet);
    }

    private void advanceMillis(long millis) {
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
    }

    @Test
    void isHeldForItsValidityFromTheStartOfTheGrantingCallAndNotANanosecondLonger() {
        Lease lease = lease(1_000, m -> m - 100);

        advanceMillis(899);
        assertThat(lease.isHeld()).isTrue();
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(1) - 1);
        assertThat(lease.isHeld()).as("one nanosecond before the validity ends").isTrue();
        now.incrementAndGet();
        assertThat(lease.isHeld()).as("validity 900 ms of a 1 s lease, at 900 ms").isFalse();
        assertThat(lease.isLost()).as("run out is not reported lost").isFalse();
        assertThat(lease.millis()).isEqualTo(1_000);
    }

    @Test
    void aLeaseWithNoValidityIsNeverHeld() {
        assertThat(lease(2, m -> 0).isHeld()).isFalse();
    }

    @Test
    void aConfirmedSetCountsTheNewLeaseFromTheStartOfItsStoreCall() {
        Lease lease = lease(1_000, m -> m);
        advanceMillis(500);
        List<Long> asked = new ArrayList<>();

        boolean set = lease.set(3_000, millis -> {
            asked.add(millis);
            advanceMillis(200); // the store call takes 200 ms
            return true;
        });

        assertThat(set).isTrue();
        assertThat(asked).containsExactly(3_000L);
        assertThat(lease.millis()).isEqualTo(3_000);
        advanceMillis(2_799);
        assertThat(lease.isHeld()).as("2999 ms after the call started").isTrue();
        advanceMillis(1);
        assertThat(lease.isHeld()).as("3 s after the call started, not after it ended").isFalse();
    }

    @Test
    void aShorterLeaseSetEndsSooner() {
        Lease lease = lease(10_000, m -> m);
        assertThat(lease.set(1_000, millis -> true)).isTrue();

        advanceMillis(1_000);

        assertThat(lease.isHeld()).isFalse();
    }

    @Test
    void aRenewalAsksForTheLeaseTheLastSetGave() {
        Lease lease = lease(1_000, m -> m);
        lease.set(5_000, millis -> true);
        List<Long> asked = new ArrayList<>();

        assertThat(lease.renew(millis -> asked.add(millis))).isTrue();

        assertThat(asked).containsExactly(5_000L);
    }

    @Test
    void aStoreThatNoLongerHasTheLeaseMakesItLostAtOnceAndReportsThatOnce() {
        Lease lease = lease(1_000, m -> m);

        assertThat(lease.set(2_000, millis -> false)).isFalse();

        assertThat(lease.isLost()).isTrue();
        assertThat(lease.isHeld()).as("lost although its time is not up").isFalse();
        assertThat(lease.millis()).as("the refused lease is not taken").isEqualTo(1_000);
        assertThat(lostReports).hasValue(1);

        lease.markLost();
        assertThat(lease.renew(millis -> false)).isFalse();
        assertThat(lostReports).as("reported by the first to find it lost only").hasValue(1);
    }

    @Test
    void anUnreachableStoreLeavesTheViewAsItWas() {
        Lease lease = lease(1_000, m -> m);
        advanceMillis(500);

        assertThatThrownBy(() -> lease.set(5_000, millis -> {
            throw new IllegalStateException("store unreachable");
        })).hasMessage("store unreachable");

        assertThat(lease.millis()).isEqualTo(1_000);
        assertThat(lease.isLost()).isFalse();
        advanceMillis(499);
        assertThat(lease.isHeld()).isTrue();
        advanceMillis(1);
        assertThat(lease.isHeld()).as("still the first lease's end").isFalse();
    }
}
