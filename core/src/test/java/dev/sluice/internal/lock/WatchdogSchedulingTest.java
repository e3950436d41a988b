package dev.sluice.internal.lock;

import dev.sluice.internal.lease.Watchdog;
import dev.sluice.internal.lease.Lease;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When the watchdog asks to be woken: when the next lease is due and not before, plus once more a little after a
 * sweep starts (to take over should that sweep hang). On a clock that only the test moves, so the delays it asks
 * for are exact. Also the threads it runs on.
 */
class WatchdogSchedulingTest {

    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
    private static final long ALLOWANCE = Watchdog.STALL_ALLOWANCE_NANOS;

    private final AtomicLong now = new AtomicLong(5 * SECOND);

    /** A {@link ManualScheduler} that also records the delay of everything scheduled. */
    private static final class RecordingScheduler extends ManualScheduler {
        final List<Long> delays = new ArrayList<>();

        @Override
        public synchronized ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
            delays.add(unit.toNanos(delay));
            return super.schedule(command, delay, unit);
        }

        synchronized List<Long> takeDelays() {
            List<Long> taken = List.copyOf(delays);
            delays.clear();
            return taken;
        }
    }

    private static final class Counted implements Watchdog.Renewable {
        final AtomicInteger renewals = new AtomicInteger();

        @Override
        public boolean renew(long leaseMillis) {
            renewals.incrementAndGet();
            return true;
        }

        @Override
        public String describe() {
            return "counted lease";
        }
    }

    private Lease lease(long millis) {
        return new Lease(now::get, now.get(), millis, m -> m, () -> { });
    }

    @Test
    void wakesWhenTheEarliestLeaseIsDueAndAgainOnlyWhenTheNextIsDue() {
        RecordingScheduler scheduler = new RecordingScheduler();
        try (Watchdog watchdog = Watchdog.on(scheduler, now::get)) {
            Counted shortLease = new Counted();
            Counted longLease = new Counted();
            // Periods (a third of the lease): 1 s and 3 s.
            watchdog.watch(lease(9_000), now.get(), longLease);
            watchdog.watch(lease(3_000), now.get(), shortLease);
            assertThat(scheduler.takeDelays()).as("the long lease's renewal, then brought forward for the short one")
                    .containsExactly(3 * SECOND, SECOND);

            now.addAndGet(SECOND);
            scheduler.runPending();
            assertThat(shortLease.renewals).hasValue(1);
            assertThat(longLease.renewals).hasValue(0);
            assertThat(scheduler.takeDelays()).as("a stand-in should this sweep hang, nothing else yet")
                    .containsExactly(ALLOWANCE);

            now.addAndGet(ALLOWANCE);
            scheduler.runPending();
            assertThat(scheduler.takeDelays()).as("the short lease's next renewal, the earlier of the two due")
                    .containsExactly(SECOND - ALLOWANCE);
            assertThat(shortLease.renewals).hasValue(1);
        } finally {
            scheduler.shutdownNow();
        }
    }

    /**
     * Which lease comes first in the watchdog's set is down to chance, so this is repeated: a watchdog that woke
     * for whichever lease it looked at first would be caught within a few rounds.
     */
    @Test
    void ofManyLeasesTheOneDueFirstDecidesWhenItWakesNext() {
        for (int round = 0; round < 20; round++) {
            RecordingScheduler scheduler = new RecordingScheduler();
            try (Watchdog watchdog = Watchdog.on(scheduler, now::get)) {
                // Periods 1 s, 2.5 s, 3.5 s and 4.5 s.
                for (long lease : new long[] {13_500, 3_000, 10_500, 7_500}) {
                    watchdog.watch(lease(lease), now.get(), new Counted());
                }
                now.addAndGet(SECOND);
                scheduler.runPending(); // renews the 1 s one, due again in 1 s: before the others
                now.addAndGet(ALLOWANCE);
                scheduler.takeDelays();
                scheduler.runPending();

                assertThat(scheduler.takeDelays()).as("round %d", round).containsExactly(SECOND - ALLOWANCE);
            } finally {
                scheduler.shutdownNow();
            }
        }
    }

    @Test
    void aShorterLeaseSetByTheHolderAsksToBeWokenSooner() {
        RecordingScheduler scheduler = new RecordingScheduler();
        try (Watchdog watchdog = Watchdog.on(scheduler, now::get)) {
            Lease lease = lease(30_000);
            Watchdog.Renewal renewal = watchdog.watch(lease, now.get(), new Counted());
            assertThat(scheduler.takeDelays()).containsExactly(10 * SECOND);

            assertThat(lease.set(3_000, millis -> true)).isTrue();
            renewal.leaseChanged(now.get());

            assertThat(scheduler.takeDelays()).as("a third of the new lease").containsExactly(SECOND);
        } finally {
            scheduler.shutdownNow();
        }
    }

    @Test
    void aLeaseIsRenewedUpToATenthOfItsPeriodEarly() {
        RecordingScheduler scheduler = new RecordingScheduler();
        try (Watchdog watchdog = Watchdog.on(scheduler, now::get)) {
            Counted early = new Counted();
            watchdog.watch(lease(3_000), now.get(), early);

            now.addAndGet(SECOND - SECOND / 10 - 1);
            scheduler.runPending();
            assertThat(early.renewals).as("more than a tenth of its period early").hasValue(0);
            now.incrementAndGet();
            scheduler.runPending();
            assertThat(early.renewals).as("a tenth of its period early").hasValue(1);
        } finally {
            scheduler.shutdownNow();
        }
    }

    @Test
    void aSweepWithNothingDueAsksForNoStandIn() {
        RecordingScheduler scheduler = new RecordingScheduler();
        try (Watchdog watchdog = Watchdog.on(scheduler, now::get)) {
            Counted held = new Counted();
            watchdog.watch(lease(3_000), now.get(), held);
            scheduler.takeDelays();

            // A sweep that runs early (the scheduler's clock ahead of ours) renews nothing and asks again for the due time.
            now.addAndGet(SECOND / 2);
            scheduler.runPending();

            assertThat(held.renewals).hasValue(0);
            assertThat(scheduler.takeDelays()).containsExactly(SECOND / 2);
        } finally {
            scheduler.shutdownNow();
        }
    }

    @Test
    void itsOwnThreadsAreDaemonsSoTheyNeverKeepAJvmAlive() throws Exception {
        try (Watchdog watchdog = Watchdog.ownScheduler()) {
            CompletableFuture<Thread> ranOn = new CompletableFuture<>();
            watchdog.execute(() -> ranOn.complete(Thread.currentThread()));

            Thread thread = ranOn.get(10, TimeUnit.SECONDS);
            assertThat(thread).isNotSameAs(Thread.currentThread());
            assertThat(thread.isDaemon()).isTrue();
            assertThat(thread.getName()).startsWith("sluice-watchdog-");
        }
    }

    @Test
    void withoutAContainerItRenewsOnThreadsOfItsOwn() throws Exception {
        try (Watchdog watchdog = Watchdog.create(System::nanoTime)) {
            CompletableFuture<Thread> renewedOn = new CompletableFuture<>();
            Lease lease = new Lease(System::nanoTime, System.nanoTime(), 30, m -> m, () -> { });
            watchdog.watch(lease, System.nanoTime(), new Watchdog.Renewable() {
                @Override
                public boolean renew(long leaseMillis) {
                    renewedOn.complete(Thread.currentThread());
                    return true;
                }

                @Override
                public String describe() {
                    return "lease of 30 ms";
                }
            });

            assertThat(renewedOn.get(10, TimeUnit.SECONDS).getName()).startsWith("sluice-watchdog-");
        }
    }
}
