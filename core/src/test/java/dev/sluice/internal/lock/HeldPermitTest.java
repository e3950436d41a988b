package dev.sluice.internal.lock;

import dev.sluice.internal.lease.Watchdog;
import dev.sluice.DistributedSemaphore;
import dev.sluice.LockLostException;
import dev.sluice.Permit;
import dev.sluice.internal.metrics.GuardMetrics;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A held permit over time, on the in-process store and a clock the test moves, with a watchdog that renews only
 * when the test runs it: renewals, a permit that expired, returning it twice, and a store that fails on return.
 */
class HeldPermitTest {

    private static final Duration LEASE = Duration.ofSeconds(3);

    private final TestClock clock = new TestClock();
    private final ReleaseSignals signals = new ReleaseSignals();
    private final InProcessLockStore locks = new InProcessLockStore(clock::micros, signals);
    private final InProcessSemaphoreStore permits = new InProcessSemaphoreStore(clock::micros, signals);
    private final AtomicBoolean returnsFail = new AtomicBoolean();
    private final SemaphoreStore store = new SemaphoreStore() {
        @Override
        public Attempt tryAcquire(String key, String permitId, int count, long leaseMillis) {
            return permits.tryAcquire(key, permitId, count, leaseMillis);
        }

        @Override
        public boolean release(String key, String permitId) {
            if (returnsFail.get()) {
                throw new IllegalStateException("store unreachable");
            }
            return permits.release(key, permitId);
        }

        @Override
        public boolean extend(String key, String permitId, long leaseMillis) {
            return permits.extend(key, permitId, leaseMillis);
        }

        @Override
        public LockStore.Handover handOver(String key, String holder, String next, int count, long leaseMillis) {
            // two steps through this store's own release, so that a failing return fails the hand-over too
            return SemaphoreStore.releaseAndRefuse(this, key, holder);
        }
    };
    private final ManualScheduler watchdogRuns = new ManualScheduler();
    private final LockService node = StoreFixture.service(locks, store, signals,
            Watchdog.on(watchdogRuns, clock::nanos), "t");
    private final LockService other = StoreFixture.service(locks, permits, signals,
            Watchdog.ownScheduler(clock::nanos), "t");

    @AfterEach
    void close() {
        node.close();
        other.close();
        watchdogRuns.shutdownNow();
    }

    private GuardMetrics metrics() {
        return node.metrics.semaphore("pool");
    }

    @Test
    void aSemaphoreTellsItsNameAndPermitsAndSoDoesItsPermit() {
        DistributedSemaphore pool = node.semaphore("pool", 2);
        assertThat(pool.name()).isEqualTo("pool");
        assertThat(pool.permits()).isEqualTo(2);
        try (Permit permit = pool.acquire(LEASE, Duration.ZERO)) {
            assertThat(permit.name()).isEqualTo("pool");
            assertThat(permit.isHeld()).isTrue();
            assertThat(permit.toString()).isEqualTo("Permit[pool, held=true]");
        }
    }

    @Test
    void theWaitAndTheHoldAreTimedOnTheLockClockAndAReturnedPermitIsNoLongerWatched() {
        long before = clock.nanos();
        Permit permit = node.semaphore("pool", 1).acquire(LEASE, Duration.ZERO);
        assertThat(node.watchdog.watching()).isEqualTo(1);
        clock.advance(Duration.ofSeconds(2));
        permit.close();
        long elapsed = clock.nanos() - before;

        assertThat(node.watchdog.watching()).as("returned, so not renewed any more").isZero();
        assertThat(metrics().waits().count()).isEqualTo(1);
        assertThat(metrics().waits().maxNanos()).isBetween(0L, elapsed - Duration.ofSeconds(2).toNanos());
        assertThat(metrics().holds().count()).isEqualTo(1);
        assertThat(metrics().holds().maxNanos()).isBetween(Duration.ofSeconds(2).toNanos(), elapsed);
    }

    @Test
    void theWatchdogRenewsAHeldPermitAndCountsEachRenewal() {
        Permit permit = node.semaphore("pool", 1).acquire(LEASE, Duration.ZERO);

        for (int third = 1; third <= 6; third++) {
            clock.advance(LEASE.dividedBy(3));
            watchdogRuns.runPending();
        }

        assertThat(permit.isHeld()).as("two leases later").isTrue();
        assertThat(other.semaphore("pool", 1).tryAcquire(LEASE)).isEmpty();
        assertThat(metrics().renewalCount()).isEqualTo(6);
        permit.close();
        assertThat(permit.isHeld()).isFalse();
    }

    @Test
    void aPermitReclaimedBeforeItsRenewalIsLostNotRenewed() {
        Permit permit = node.semaphore("pool", 1).acquire(LEASE, Duration.ZERO);
        clock.advance(LEASE.plusSeconds(1));
        Permit taken = other.semaphore("pool", 1).tryAcquire(LEASE).orElseThrow();

        watchdogRuns.runPending();

        assertThat(metrics().renewalCount()).isZero();
        assertThat(metrics().leasesLostCount()).isEqualTo(1);
        assertThat(permit.isHeld()).isFalse();
        assertThatThrownBy(permit::close).isInstanceOf(LockLostException.class)
                .hasMessageContaining("more than 1 holders may have run at once");
        assertThat(metrics().leasesLostCount()).as("counted once").isEqualTo(1);
        taken.close();
    }

    @Test
    void returningAnExpiredPermitCountsOneLostLeaseAndReturningItAgainDoesNothing() {
        Permit permit = node.semaphore("pool", 1).acquire(LEASE, Duration.ZERO);
        clock.advance(LEASE.plusSeconds(1));
        Permit taken = other.semaphore("pool", 1).tryAcquire(LEASE).orElseThrow();

        assertThatThrownBy(permit::close).isInstanceOf(LockLostException.class).hasMessageContaining("'pool'");
        permit.close();

        assertThat(metrics().leasesLostCount()).isEqualTo(1);
        assertThat(taken.isHeld()).isTrue();
        taken.close();
    }

    @Test
    void aPermitThatCannotBeReturnedStillInItsLeaseIsLeftToExpireWithoutAnError() {
        Permit permit = node.semaphore("pool", 1).acquire(LEASE, Duration.ZERO);
        returnsFail.set(true);

        permit.close();

        assertThat(permit.isHeld()).isFalse();
        assertThat(metrics().leasesLostCount()).isZero();
        assertThat(other.semaphore("pool", 1).tryAcquire(LEASE)).as("still taken in the store").isEmpty();
        clock.advance(LEASE.plusSeconds(1));
        assertThat(other.semaphore("pool", 1).tryAcquire(LEASE)).as("reclaimed after its lease").isPresent();
    }

    @Test
    void aPermitThatCannotBeReturnedAfterItsLeaseIsReportedLost() {
        Permit permit = node.semaphore("pool", 1).acquire(LEASE, Duration.ZERO);
        clock.advance(LEASE.plusSeconds(1));
        returnsFail.set(true);

        assertThatThrownBy(permit::close).isInstanceOf(LockLostException.class);
        assertThat(metrics().leasesLostCount()).isEqualTo(1);
    }
}
