package dev.sluice.internal.lock;

import dev.sluice.internal.lease.Watchdog;
import dev.sluice.internal.lease.Lease;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The watchdog's sweep on its own, over leases whose renewals the test controls. */
class WatchdogTest {

    private static final Duration PATIENCE = Duration.ofSeconds(10);

    private final Watchdog watchdog = Watchdog.ownScheduler();

    @AfterEach
    void close() {
        watchdog.close();
    }

    /** A held lease whose renewals are counted and answered by {@code answer}. */
    private static final class Held implements Watchdog.Renewable {
        final AtomicInteger renewals = new AtomicInteger();
        final BooleanSupplier answer;
        final long leaseMillis;
        final LongSupplier clock;
        final Lease lease;
        Watchdog.Renewal renewal;

        Held(long leaseMillis, BooleanSupplier answer) {
            this(System::nanoTime, leaseMillis, answer);
        }

        Held(LongSupplier clock, long leaseMillis, BooleanSupplier answer) {
            this.leaseMillis = leaseMillis;
            this.answer = answer;
            this.clock = clock;
            this.lease = new Lease(clock, clock.getAsLong(), leaseMillis, m -> m, () -> { });
        }

        @Override
        public boolean renew(long leaseMillis) {
            renewals.incrementAndGet();
            return answer.getAsBoolean();
        }

        @Override
        public String describe() {
            return "test lease of " + leaseMillis + " ms";
        }
    }

    private Held watch(long leaseMillis, BooleanSupplier answer) {
        Held held = new Held(leaseMillis, answer);
        held.renewal = watchdog.watch(held.lease, System.nanoTime(), held);
        return held;
    }

    @Test
    void renewsEveryLeaseOfDifferentLengthsAndKeepsThemHeld() {
        Held shortest = watch(60, () -> true);
        Held middle = watch(150, () -> true);
        Held longest = watch(600, () -> true);

        await().atMost(PATIENCE).until(() -> longest.renewals.get() >= 3);

        assertThat(shortest.renewals.get()).isGreaterThanOrEqualTo(3);
        assertThat(middle.renewals.get()).isGreaterThanOrEqualTo(3);
        assertThat(shortest.lease.isLost() || middle.lease.isLost() || longest.lease.isLost()).isFalse();
        assertThat(watchdog.watching()).isEqualTo(3);
    }

    @Test
    void releasedLeaseIsNoLongerRenewed() {
        Held released = watch(60, () -> true);
        Held sentinel = watch(60, () -> true);
        await().atMost(PATIENCE).until(() -> released.renewals.get() >= 1);

        released.renewal.cancel();
        int atRelease = released.renewals.get();
        int sentinelAtRelease = sentinel.renewals.get();
        // Two more periods of a lease as long: a renewal of the released one would have come by now.
        await().atMost(PATIENCE).until(() -> sentinel.renewals.get() >= sentinelAtRelease + 3);

        assertThat(released.renewals).hasValue(atRelease);
        assertThat(watchdog.watching()).isEqualTo(1);
    }

    @Test
    void renewalThatFindsTheLeaseGoneMarksItLostAndStopsRenewingIt() {
        Held gone = watch(60, () -> false);
        Held sentinel = watch(60, () -> true);

        await().atMost(PATIENCE).until(gone.lease::isLost);
        int sentinelAtLoss = sentinel.renewals.get();
        await().atMost(PATIENCE).until(() -> sentinel.renewals.get() >= sentinelAtLoss + 3);

        assertThat(gone.renewals).hasValue(1);
        assertThat(gone.lease.isHeld()).isFalse();
        assertThat(watchdog.watching()).isEqualTo(1);
    }

    @Test
    void failingRenewalIsRetriedAndTheLeaseCountsLostOnlyWhenNoneIsConfirmedForAWholeLease() {
        TestClock clock = new TestClock();
        ManualScheduler scheduler = new ManualScheduler();
        try (Watchdog manual = Watchdog.on(scheduler, clock::nanos)) {
            Held unreachable = watch(manual, new Held(clock::nanos, 3_000, () -> {
                throw new IllegalStateException("store unreachable");
            }));
            // Renewed a third of the lease apart: the attempt after the failed one still comes inside the lease.
            Held flaky = watch(manual, new Held(clock::nanos, 3_000, new BooleanSupplier() {
                private final AtomicInteger calls = new AtomicInteger();

                @Override
                public boolean getAsBoolean() {
                    if (calls.incrementAndGet() == 1) {
                        throw new IllegalStateException("store unreachable");
                    }
                    return true;
                }
            }));

            for (int third = 1; third <= 2; third++) {
                clock.advance(Duration.ofSeconds(1));
                scheduler.runPending();
            }
            assertThat(unreachable.lease.isHeld()).as("a third of the lease is still unconfirmed").isTrue();
            clock.advance(Duration.ofSeconds(1));
            scheduler.runPending();

            assertThat(unreachable.lease.isHeld()).isFalse();
            assertThat(unreachable.lease.isLost()).as("unknown, not lost: it may still be alive in the store").isFalse();
            assertThat(unreachable.renewals).as("retried every period").hasValue(3);
            assertThat(flaky.renewals).hasValue(3);
            assertThat(flaky.lease.isHeld()).isTrue();
        } finally {
            scheduler.shutdownNow();
        }
    }

    @Test
    void shorterLeaseSetByTheHolderBringsTheNextRenewalForward() {
        TestClock clock = new TestClock();
        ManualScheduler scheduler = new ManualScheduler();
        try (Watchdog manual = Watchdog.on(scheduler, clock::nanos)) {
            Held held = watch(manual, new Held(clock::nanos, 30_000, () -> true));
            assertThat(held.lease.set(3_000, millis -> true)).isTrue();
            held.renewal.leaseChanged(clock.nanos());

            clock.advance(Duration.ofMillis(1_100));
            scheduler.runPending();

            assertThat(held.renewals).as("a third of the new 3 s lease, not of the old 30 s one").hasValue(1);
            assertThat(held.lease.millis()).isEqualTo(3_000);
        } finally {
            scheduler.shutdownNow();
        }
    }

    @Test
    void renewsEveryThirdOfTheLeaseAndNoMoreOften() {
        TestClock clock = new TestClock();
        ManualScheduler scheduler = new ManualScheduler();
        try (Watchdog manual = Watchdog.on(scheduler, clock::nanos)) {
            Held held = watch(manual, new Held(clock::nanos, 3_000, () -> true));
            // Nine seconds in steps of 100 ms, each step running whatever sweep is scheduled: a watchdog renewing
            // at every sweep would renew about 90 times.
            for (int step = 1; step <= 90; step++) {
                clock.advance(Duration.ofMillis(100));
                scheduler.runPending();
                assertThat(held.lease.isHeld()).as("held at %d ms", step * 100).isTrue();
            }
            // Nine thirds of the lease have passed; a renewal may come up to a tenth of its period early (900 ms
            // apart at the closest, so at most 10 in 9 s) and at most one step late (so at least 9 - 1).
            assertThat(held.renewals.get()).isBetween(8, 10);
        } finally {
            scheduler.shutdownNow();
        }
    }

    private static Held watch(Watchdog on, Held held) {
        held.renewal = on.watch(held.lease, held.clock.getAsLong(), held);
        return held;
    }

    @Test
    void oneHangingRenewalDoesNotHoldUpTheOthers() {
        CountDownLatch unblock = new CountDownLatch(1);
        Held hanging = watch(60, () -> {
            try {
                unblock.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return true;
        });
        try {
            await().atMost(PATIENCE).until(() -> hanging.renewals.get() == 1);
            Held other = watch(60, () -> true);
            Held another = watch(90, () -> true);

            await().atMost(PATIENCE).until(() -> other.renewals.get() >= 3 && another.renewals.get() >= 3);
            assertThat(hanging.renewals).as("never renewed twice at once").hasValue(1);
        } finally {
            unblock.countDown();
        }
        await().atMost(PATIENCE).until(() -> hanging.renewals.get() >= 2);
    }

    @Test
    void takingAndReleasingLeasesDoesNotReschedulePerLease() {
        CountingScheduler scheduler = new CountingScheduler();
        try (Watchdog counted = Watchdog.on(scheduler)) {
            for (int i = 0; i < 1_000; i++) {
                Held held = new Held(30_000, () -> true);
                long now = System.nanoTime();
                counted.watch(held.lease, now, held).cancel();
            }
            assertThat(scheduler.scheduled).as("one sweep for all of them").hasValue(1);
            assertThat(counted.watching()).isZero();
        } finally {
            scheduler.shutdownNow();
        }
    }

    @Test
    void watchdogWithNothingToRenewSchedulesNothing() {
        CountingScheduler scheduler = new CountingScheduler();
        try (Watchdog counted = Watchdog.on(scheduler)) {
            Held held = new Held(60, () -> true);
            Watchdog.Renewal renewal = counted.watch(held.lease, System.nanoTime(), held);
            await().atMost(PATIENCE).until(() -> held.renewals.get() >= 2);

            renewal.cancel();

            await().atMost(PATIENCE).during(Duration.ofMillis(300)).until(() -> scheduler.getQueue().isEmpty());
        } finally {
            scheduler.shutdownNow();
        }
    }

    @Test
    void closeStopsRenewing() {
        Held held = watch(60, () -> true);
        await().atMost(PATIENCE).until(() -> held.renewals.get() >= 1);

        watchdog.close();

        assertThat(watchdog.watching()).isZero();
    }

    /** Counts what the watchdog asks of its scheduler. */
    private static final class CountingScheduler extends ScheduledThreadPoolExecutor {
        final AtomicInteger scheduled = new AtomicInteger();

        CountingScheduler() {
            super(1);
        }

        @Override
        public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
            scheduled.incrementAndGet();
            return super.schedule(command, delay, unit);
        }

        @Override
        public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
            scheduled.incrementAndGet();
            return super.scheduleAtFixedRate(command, initialDelay, period, unit);
        }
    }
}
