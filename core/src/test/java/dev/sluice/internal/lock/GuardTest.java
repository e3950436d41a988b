package dev.sluice.internal.lock;

import dev.sluice.DistributedSemaphore;
import dev.sluice.LockHandle;
import dev.sluice.LockLostException;
import dev.sluice.LockNotAcquiredException;
import dev.sluice.Permit;
import dev.sluice.internal.lease.Watchdog;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What every lock and semaphore shares ({@link Guard}, {@link Hold}, the {@link WaitQueues} of a
 * {@link LockService}), on the in-process stores and a lock-path clock that stands still unless the test moves
 * it: what is counted, what a failed attempt leaves behind, when a key's queue is dropped, and who is woken when
 * a holder gives back.
 */
class GuardTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    /** Long enough never to run out in a test: a waiter that is not woken would sit out the whole test's timeout. */
    private static final Duration LONG_WAIT = Duration.ofMinutes(5);

    /** The lock path's clock (nanoseconds); the stores keep the wall clock, so leases in them do not run out. */
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final ReleaseSignals signals = new ReleaseSignals();
    private final InProcessLockStore locks = new InProcessLockStore(signals);
    private final InProcessSemaphoreStore semaphores = new InProcessSemaphoreStore(InProcessLockStore::wallClockMicros,
            signals);
    private final ManualScheduler scheduler = new ManualScheduler();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final java.util.List<AutoCloseable> toClose = new java.util.ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
        threads.shutdownNow();
        scheduler.shutdownNow();
    }

    /** A service on {@code lockStore} whose watchdog and clean-ups run only when the test runs the scheduler. */
    private LockService service(LockStore lockStore) {
        Watchdog watchdog = Watchdog.on(scheduler, nanos::get);
        LockService service = new LockService(lockStore, semaphores, signals, watchdog, "t",
                LockService.Options.of(watchdog, LockService.DEFAULT_MAX_POLL_MILLIS));
        toClose.add(service);
        return service;
    }

    private LockService service() {
        return service(locks);
    }

    private static WaitQueue queueOf(LockService service, DefaultDistributedLock lock) {
        return lock.parts.queues().get(service.lockKey(lock.key()));
    }

    @Test
    void aLeaseOfOneMillisecondIsTheShortestAccepted() {
        LockService node = service();

        assertThat(node.lock("job").tryAcquire(Duration.ofMillis(1))).isPresent();
        assertThatThrownBy(() -> node.lock("other").tryAcquire(Duration.ofNanos(999_999)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("lease of lock 'other' must be at least 1ms, was PT0.000999999S");
    }

    @Test
    void anAcquisitionOutOfTimeIsCountedAndSaysHowLongItWaitedOnTheLockPathsClock() {
        LockService node = service();
        LockService other = service();
        LockHandle held = other.lock("job").acquire(LEASE, Duration.ZERO);

        assertThatThrownBy(() -> node.lock("job").acquire(LEASE, Duration.ZERO))
                .isInstanceOfSatisfying(LockNotAcquiredException.class,
                        e -> assertThat(e.waited()).as("the clock stood still").isEqualTo(Duration.ZERO));
        assertThat(node.lock("job").tryAcquire(LEASE)).isEmpty();

        assertThat(node.metrics.lock("job").timeoutCount()).isEqualTo(2);
        held.close();
    }

    @Test
    void anAttemptWhoseReplyWasLostIsCountedAndUndoneInTheBackgroundSoThatAnotherOwnerNeedNotWaitForItsLease() {
        LockStore replyLost = new ForwardingLockStore(locks) {
            @Override
            public Attempt tryLock(String key, String owner, long leaseMillis) {
                super.tryLock(key, owner, leaseMillis); // applied in the store, but the caller never hears of it
                throw new redis.clients.jedis.exceptions.JedisConnectionException("read timed out");
            }
        };
        LockService node = service(replyLost);
        LockService other = service();

        assertThatThrownBy(() -> node.lock("job").tryAcquire(LEASE)).isInstanceOf(LockNotAcquiredException.class)
                .hasRootCauseMessage("read timed out");
        assertThat(node.metrics.lock("job").redisErrorCount()).isEqualTo(1);
        assertThat(other.lock("job").tryAcquire(LEASE)).as("taken by the lost attempt").isEmpty();

        scheduler.runPending(); // the clean-up, off the caller's thread

        assertThat(other.lock("job").tryAcquire(LEASE)).as("given back by the clean-up").isPresent();
    }

    @Test
    void aKeysQueueIsDroppedOnceNobodyWaitsForOrHoldsIt() throws Exception {
        LockService node = service();
        DefaultDistributedLock lock = (DefaultDistributedLock) node.lock("job");
        LockHandle held = lock.acquire(LEASE, Duration.ZERO);
        assertThat(queueOf(node, lock)).as("used by its holder").isNotNull();

        // Another thread of this JVM queues behind the holder and runs out of time at once.
        assertThat(threads.submit(() -> lock.tryAcquire(LEASE)).get(30, TimeUnit.SECONDS)).isEmpty();
        assertThat(queueOf(node, lock)).as("still the holder's").isNotNull();
        held.close();

        assertThat(queueOf(node, lock)).isNull();
        DefaultDistributedSemaphore semaphore = (DefaultDistributedSemaphore) node.semaphore("pool", 1);
        semaphore.acquire(LEASE, Duration.ZERO).close();
        assertThat(semaphore.parts.queues().get(node.semaphoreKey("pool"))).isNull();
    }

    @Test
    void aThreadQueuedWhileTheHolderReleasesTriesTheStoreOnceTheReleaseIsDone() throws Exception {
        CountDownLatch releasing = new CountDownLatch(1);
        CountDownLatch releaseMayFinish = new CountDownLatch(1);
        LockStore slowRelease = new ForwardingLockStore(locks) {
            @Override
            public boolean unlock(String key, String owner) {
                releasing.countDown();
                awaitQuietly(releaseMayFinish);
                return super.unlock(key, owner);
            }
        };
        LockService node = service(slowRelease);
        LockHandle held = node.lock("job").acquire(LEASE, Duration.ZERO);
        Future<?> closing = threads.submit(held::close); // nobody queued: a plain release
        releasing.await();

        Future<Optional<LockHandle>> late = threads.submit(() -> Optional.of(node.lock("job").acquire(LEASE, LONG_WAIT)));
        await().atMost(Duration.ofSeconds(30)).until(() -> node.queued(node.lockKey("job")) == 1);
        releaseMayFinish.countDown();
        closing.get(30, TimeUnit.SECONDS);

        assertThat(late.get(30, TimeUnit.SECONDS)).as("given the turn by the release, not left to its deadline")
                .isPresent();
    }

    @Test
    void aWaiterGrantedAPermitPassesTheTurnSoTheNextWaiterIsWokenByTheNextReturn() throws Exception {
        LockService node = service();
        LockService other = service();
        DistributedSemaphore pool = node.semaphore("pool", 2);
        Permit first = other.semaphore("pool", 2).acquire(LEASE, Duration.ZERO);
        Permit second = other.semaphore("pool", 2).acquire(LEASE, Duration.ZERO);
        String key = node.semaphoreKey("pool");

        Future<Permit> a = threads.submit(() -> pool.acquire(LEASE, LONG_WAIT));
        await().atMost(Duration.ofSeconds(30)).until(() -> node.waitingForPermits(key) == 1);
        Future<Permit> b = threads.submit(() -> pool.acquire(LEASE, LONG_WAIT));
        await().atMost(Duration.ofSeconds(30)).until(() -> node.waitingForPermits(key) == 2);

        first.close();
        Permit gotA = a.get(30, TimeUnit.SECONDS);
        second.close(); // another instance's return: only the waiter with the turn watches for it

        Permit gotB = b.get(30, TimeUnit.SECONDS);
        assertThat(gotA.isHeld()).isTrue();
        assertThat(gotB.isHeld()).isTrue();
        gotA.close();
        gotB.close();
    }

    @Test
    void semaphoresOfDifferentNamesHaveKeysOfTheirOwn() {
        LockService node = service();
        assertThat(node.semaphoreKey("pdf")).isEqualTo("t:sem:{pdf}");
        Permit pdf = node.semaphore("pdf", 1).acquire(LEASE, Duration.ZERO);

        assertThat(node.semaphore("mail", 1).tryAcquire(LEASE)).isPresent();
        assertThat(node.semaphore("pdf", 1).tryAcquire(LEASE)).isEmpty();
        pdf.close();
    }

    @Test
    void aLockReleasedAfterItsLeaseWentUnconfirmedIsReportedOnceThoughTheStoreStillHadIt() {
        LockStore drifting = new ForwardingLockStore(locks) {
            @Override
            public long validityMillis(long leaseMillis) {
                return leaseMillis / 2; // as Redlock allows for clock drift
            }
        };
        LockService node = service(drifting);
        LockHandle held = node.lock("job").acquire(LEASE, Duration.ZERO);
        nanos.addAndGet(Duration.ofSeconds(20).toNanos()); // the watchdog did not run: past the 15 s validity

        held.close(); // the store still had it: released, no exception

        assertThat(node.metrics.lock("job").leasesLostCount()).isEqualTo(1);
        assertThat(service().lock("job").tryAcquire(LEASE)).isPresent();
    }

    @Test
    void aLockTheStoreNoLongerHadAtItsReleaseIsCountedLostThoughItsLeaseSeemedHeld() {
        AtomicReference<String> owner = new AtomicReference<>();
        LockStore recording = new ForwardingLockStore(locks) {
            @Override
            public Attempt tryLock(String key, String o, long leaseMillis) {
                owner.set(o);
                return super.tryLock(key, o, leaseMillis);
            }
        };
        LockService node = service(recording);
        LockHandle held = node.lock("job").acquire(LEASE, Duration.ZERO);
        locks.unlock(node.lockKey("job"), owner.get()); // gone from the store (a fail-over that lost it)
        assertThat(held.isHeld()).as("nothing told the holder yet").isTrue();

        assertThatThrownBy(held::close).isInstanceOf(LockLostException.class);

        assertThat(node.metrics.lock("job").leasesLostCount()).isEqualTo(1);
    }

    @Test
    void closingTheServiceClosesItsStoresAndItsWatchdog() {
        AtomicBoolean lockStoreClosed = new AtomicBoolean();
        AtomicBoolean semaphoreStoreClosed = new AtomicBoolean();
        SemaphoreStore semaphoreStore = new SemaphoreStore() {
            @Override
            public Attempt tryAcquire(String key, String permitId, int permits, long leaseMillis) {
                return semaphores.tryAcquire(key, permitId, permits, leaseMillis);
            }

            @Override
            public boolean release(String key, String permitId) {
                return semaphores.release(key, permitId);
            }

            @Override
            public LockStore.Handover handOver(String key, String holder, String next, int permits, long leaseMillis) {
                return semaphores.handOver(key, holder, next, permits, leaseMillis);
            }

            @Override
            public boolean extend(String key, String permitId, long leaseMillis) {
                return semaphores.extend(key, permitId, leaseMillis);
            }

            @Override
            public void close() {
                semaphoreStoreClosed.set(true);
            }
        };
        LockStore lockStore = new ForwardingLockStore(locks) {
            @Override
            public void close() {
                lockStoreClosed.set(true);
            }
        };
        Watchdog watchdog = Watchdog.ownScheduler(nanos::get);
        new LockService(lockStore, semaphoreStore, signals, watchdog, "t",
                LockService.Options.of(watchdog, LockService.DEFAULT_MAX_POLL_MILLIS)).close();

        assertThat(lockStoreClosed).isTrue();
        assertThat(semaphoreStoreClosed).isTrue();
        assertThatThrownBy(() -> watchdog.execute(() -> { })).isInstanceOf(RejectedExecutionException.class);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Passes every call to a real store; tests override what they change. */
    private static class ForwardingLockStore implements LockStore {
        private final LockStore delegate;

        ForwardingLockStore(LockStore delegate) {
            this.delegate = delegate;
        }

        @Override
        public Attempt tryLock(String key, String owner, long leaseMillis) {
            return delegate.tryLock(key, owner, leaseMillis);
        }

        @Override
        public boolean unlock(String key, String owner) {
            return delegate.unlock(key, owner);
        }

        @Override
        public Handover handOver(String key, String holder, String next, long leaseMillis) {
            return LockStore.releaseAndRefuse(this, key, holder);
        }

        @Override
        public boolean extend(String key, String owner, long leaseMillis) {
            return delegate.extend(key, owner, leaseMillis);
        }

        @Override
        public long validityMillis(long leaseMillis) {
            return delegate.validityMillis(leaseMillis);
        }
    }
}
