package dev.sluice.internal.lock;

import dev.sluice.internal.lease.Watchdog;
import dev.sluice.internal.tx.Transactions;
import dev.sluice.LockHandle;
import dev.sluice.LockLostException;
import dev.sluice.internal.config.RedisSettings;
import dev.sluice.internal.metrics.GuardMetrics;
import dev.sluice.internal.metrics.SluiceMetrics;
import dev.sluice.internal.redis.CircuitBreaker;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A held lock over time, on the in-process store and a clock the test moves, with a watchdog that renews only when
 * the test runs it: what {@code extend} does to the renewals, what is counted, and a store that fails.
 */
class LockHoldTest {

    private static final Duration LONG_LEASE = Duration.ofSeconds(30);
    private static final Duration SHORT_LEASE = Duration.ofSeconds(3);

    private final TestClock clock = new TestClock();
    private final ReleaseSignals signals = new ReleaseSignals();
    private final InProcessLockStore locks = new InProcessLockStore(clock::micros, signals);
    private final InProcessSemaphoreStore semaphores = new InProcessSemaphoreStore(clock::micros, signals);
    private final ManualScheduler watchdogRuns = new ManualScheduler();
    private final LockService node = StoreFixture.service(locks, semaphores, signals,
            Watchdog.on(watchdogRuns, clock::nanos), "t");
    private final LockService other = StoreFixture.service(locks, semaphores, signals,
            Watchdog.ownScheduler(clock::nanos), "t");

    @AfterEach
    void close() {
        node.close();
        other.close();
        watchdogRuns.shutdownNow();
    }

    private GuardMetrics metrics(LockService service) {
        return service.metrics.lock("job");
    }

    @Test
    void extendingToAShorterLeaseBringsTheNextRenewalForward() {
        LockHandle held = node.lock("job").acquire(LONG_LEASE, Duration.ZERO);
        assertThat(held.extend(SHORT_LEASE)).isTrue();
        assertThat(held.isHeld()).as("right after extend").isTrue();

        clock.advance(SHORT_LEASE.dividedBy(3).plusMillis(100));
        watchdogRuns.runPending(); // a third of the 3 s lease: due, though a third of 30 s is not
        clock.advance(SHORT_LEASE.minusMillis(500));

        assertThat(other.lock("job").tryAcquire(LONG_LEASE)).as("renewed for 3 s at 1.1 s, so held at 3.6 s").isEmpty();
        assertThat(held.isHeld()).isTrue();
        assertThat(metrics(node).renewalCount()).isEqualTo(1);
        held.close();
    }

    @Test
    void aRenewalThatFindsTheLeaseGoneIsNotCountedAsARenewal() {
        LockHandle held = node.lock("job").acquire(SHORT_LEASE, Duration.ZERO);
        clock.advance(SHORT_LEASE.plusSeconds(1)); // the watchdog did not run: the lease ran out in the store
        LockHandle taken = other.lock("job").tryAcquire(LONG_LEASE).orElseThrow();

        watchdogRuns.runPending();

        assertThat(metrics(node).renewalCount()).isZero();
        assertThat(metrics(node).leasesLostCount()).isEqualTo(1);
        assertThat(held.isHeld()).isFalse();
        taken.close();
    }

    @Test
    void releasingALockWhoseLeaseWasTakenOverCountsOneLostLease() {
        LockHandle held = node.lock("job").acquire(SHORT_LEASE, Duration.ZERO);
        clock.advance(SHORT_LEASE.plusSeconds(1));
        LockHandle taken = other.lock("job").tryAcquire(LONG_LEASE).orElseThrow();

        assertThatThrownBy(held::close).isInstanceOf(LockLostException.class);

        assertThat(metrics(node).leasesLostCount()).isEqualTo(1);
        assertThat(taken.isHeld()).isTrue();
        taken.close();
    }

    @Test
    void anEmptyLockKeyOrSemaphoreNameIsRefused() {
        assertThatThrownBy(() -> node.lock("")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("lock key must not be empty");
        assertThatThrownBy(() -> node.semaphore("", 2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("semaphore name must not be empty");
        assertThatThrownBy(() -> node.semaphore(null, 2)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aFailingStoreIsReportedUnreachableAndOpensTheBreakerSoTheNextCallSkipsIt() {
        AtomicBoolean down = new AtomicBoolean(true);
        AtomicInteger attempts = new AtomicInteger();
        LockStore failing = new LockStore() {
            @Override
            public Attempt tryLock(String key, String owner, long leaseMillis) {
                attempts.incrementAndGet();
                if (down.get()) {
                    throw new redis.clients.jedis.exceptions.JedisConnectionException("store unreachable");
                }
                return locks.tryLock(key, owner, leaseMillis);
            }

            @Override
            public boolean unlock(String key, String owner) {
                return locks.unlock(key, owner);
            }

            @Override
            public Handover handOver(String key, String holder, String next, long leaseMillis) {
                return locks.handOver(key, holder, next, leaseMillis);
            }

            @Override
            public boolean extend(String key, String owner, long leaseMillis) {
                return locks.extend(key, owner, leaseMillis);
            }
        };
        Watchdog watchdog = Watchdog.ownScheduler(clock::nanos);
        SluiceMetrics metrics = SluiceMetrics.unpublished(RedisSettings.none());
        try (LockService service = new LockService(failing, semaphores, signals, watchdog, "t", new LockService.Options(
                LockService.DEFAULT_MAX_POLL_MILLIS, metrics, new CircuitBreaker(1, Duration.ofMinutes(1), clock::nanos,
                "the lock store", metrics.redis()), Transactions.NONE))) {
            assertThatThrownBy(() -> service.lock("job").tryAcquire(LONG_LEASE))
                    .hasRootCauseMessage("store unreachable");
            assertThat(metrics.redis().isReachable()).isFalse();

            assertThatThrownBy(() -> service.lock("job").tryAcquire(LONG_LEASE)).isInstanceOf(RuntimeException.class);
            assertThat(attempts).as("the open breaker kept the second call from the store").hasValue(1);
        }
    }
}
