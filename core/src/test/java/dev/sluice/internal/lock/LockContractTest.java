package dev.sluice.internal.lock;

import dev.sluice.internal.lease.Watchdog;
import dev.sluice.DistributedLock;
import dev.sluice.LockHandle;
import dev.sluice.LockLostException;
import dev.sluice.LockNotAcquiredException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What every lock store must do, run against each store (STYLE point 8). Each test uses services built
 * by {@link #fixture()}: independent instances over one backend, as several JVMs over one Redis.
 */
abstract class LockContractTest {

    static final Duration LONG_LEASE = Duration.ofSeconds(30);
    /** A lease the tests let run out with {@link StoreFixture#elapse}; long enough that real time never does. */
    static final Duration SHORT_LEASE = Duration.ofSeconds(3);

    StoreFixture fixture;

    abstract StoreFixture fixture();

    /** Acquisitions of the overlap test; each store may trim it to stay within a few seconds. */
    int overlapAcquisitions() {
        return 20_000;
    }

    @BeforeEach
    void startFixture() {
        fixture = fixture();
    }

    @AfterEach
    void closeFixture() throws Exception {
        fixture.close();
    }

    @Test
    void holdersNeverOverlapAndFencingTokensIncreaseInAcquisitionOrder() throws Exception {
        LockService a = fixture.service();
        LockService b = fixture.service();
        int threads = 16;
        int perThread = overlapAcquisitions() / threads;
        AtomicLong counter = new AtomicLong();
        AtomicLong lastToken = new AtomicLong(Long.MIN_VALUE);
        AtomicInteger tokenViolations = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> done = new ArrayList<>();
        long began = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            DistributedLock lock = (t % 2 == 0 ? a : b).lock("overlap");
            done.add(pool.submit(() -> {
                start.await();
                for (int i = 0; i < perThread; i++) {
                    try (LockHandle h = lock.acquire(LONG_LEASE, Duration.ofSeconds(30))) {
                        // Deliberately not atomic: a second holder inside would lose one of the updates.
                        long seen = counter.get();
                        long previousToken = lastToken.get();
                        Thread.yield();
                        if (h.fencingToken() <= previousToken) {
                            tokenViolations.incrementAndGet();
                        }
                        lastToken.set(h.fencingToken());
                        counter.set(seen + 1);
                    }
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : done) {
            f.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();
        long elapsedMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began));
        System.out.printf("%s: %d acquisitions in %d ms (%d/s)%n", getClass().getSimpleName(),
                (long) perThread * threads, elapsedMillis, (long) perThread * threads * 1000 / elapsedMillis);

        assertThat(counter.get()).isEqualTo((long) perThread * threads);
        assertThat(tokenViolations).hasValue(0);
    }

    @Test
    void tryAcquireIsEmptyWhileAnotherOwnerHolds() {
        LockService a = fixture.service();
        LockService b = fixture.service();
        try (LockHandle held = a.lock("k").acquire(LONG_LEASE, Duration.ZERO)) {
            assertThat(held.isHeld()).isTrue();
            assertThat(b.lock("k").tryAcquire(LONG_LEASE)).isEmpty();
        }
        Optional<LockHandle> after = b.lock("k").tryAcquire(LONG_LEASE);
        assertThat(after).isPresent();
        after.get().close();
    }

    @Test
    void timesOutWithKeyAndWaitedTimeWhenHolderDoesNotRelease() {
        LockService a = fixture.service();
        LockService b = fixture.service();
        try (LockHandle ignored = a.lock("busy").acquire(LONG_LEASE, Duration.ZERO)) {
            assertThatThrownBy(() -> b.lock("busy").acquire(LONG_LEASE, Duration.ofMillis(150)))
                    .isInstanceOfSatisfying(LockNotAcquiredException.class, e -> {
                        assertThat(e.key()).isEqualTo("busy");
                        assertThat(e.waited()).isGreaterThanOrEqualTo(Duration.ofMillis(150));
                        assertThat(e.getCause()).isNull();
                    });
        }
    }

    @Test
    void fencingTokenOfEachAcquisitionIsGreaterThanTheLast() {
        LockService a = fixture.service();
        LockService b = fixture.service();
        long previous = Long.MIN_VALUE;
        for (int i = 0; i < 20; i++) {
            try (LockHandle h = (i % 2 == 0 ? a : b).lock("fenced").acquire(LONG_LEASE, Duration.ZERO)) {
                assertThat(h.fencingToken()).isGreaterThan(previous);
                previous = h.fencingToken();
            }
        }
    }

    @Test
    void releaseAfterExpiryLeavesNewOwnersLockAlone() {
        LockService stalled = fixture.stalledService();
        LockService other = fixture.service();
        LockHandle old = stalled.lock("job").acquire(SHORT_LEASE, Duration.ZERO);
        assertThat(other.lock("job").tryAcquire(LONG_LEASE)).isEmpty();

        fixture.elapse(SHORT_LEASE.plusSeconds(1), stalled.lockKey("job"));
        LockHandle current = other.lock("job").tryAcquire(LONG_LEASE).orElseThrow();

        assertThat(old.isHeld()).isFalse();
        assertThat(current.fencingToken()).isGreaterThan(old.fencingToken());
        assertThatThrownBy(old::close).isInstanceOf(LockLostException.class).hasMessageContaining("job");
        assertThat(current.isHeld()).isTrue();
        assertThat(fixture.service().lock("job").tryAcquire(LONG_LEASE)).isEmpty();
        current.close();
    }

    @Test
    void extendReportsFalseOnceTheLeaseWasTakenOver() {
        LockService stalled = fixture.stalledService();
        LockService other = fixture.service();
        LockHandle old = stalled.lock("ext").acquire(SHORT_LEASE, Duration.ZERO);
        assertThat(old.extend(SHORT_LEASE)).isTrue();
        assertThat(old.isHeld()).isTrue();
        fixture.elapse(SHORT_LEASE.plusSeconds(1), stalled.lockKey("ext"));
        try (LockHandle current = other.lock("ext").tryAcquire(LONG_LEASE).orElseThrow()) {
            assertThat(old.extend(LONG_LEASE)).isFalse();
            assertThat(old.isHeld()).isFalse();
            assertThat(current.isHeld()).isTrue();
            assertThat(fixture.service().lock("ext").tryAcquire(LONG_LEASE)).isEmpty();
        }
    }

    @Test
    void watchdogKeepsAShortLeaseForALongHolder() {
        ManualScheduler watchdog = new ManualScheduler();
        LockService holder = fixture.serviceRenewingBy(watchdog);
        LockService contender = fixture.service();
        String key = holder.lockKey("long-job");
        try (LockHandle h = holder.lock("long-job").acquire(SHORT_LEASE, Duration.ZERO)) {
            for (int third = 1; third <= 30; third++) {
                // A method that runs ten leases long while others keep trying; renewed every third of its lease.
                fixture.elapse(SHORT_LEASE.dividedBy(3), key);
                watchdog.runPending();
                assertThat(contender.lock("long-job").tryAcquire(LONG_LEASE)).as("after %d thirds", third).isEmpty();
                assertThat(h.isHeld()).isTrue();
            }
        }
        contender.lock("long-job").tryAcquire(LONG_LEASE).orElseThrow().close();
    }

    @Test
    void renewalsKeepTheLeaseThatExtendSetInTheStoreAndInTheHolder() {
        ManualScheduler watchdog = new ManualScheduler();
        LockService node = fixture.serviceRenewingBy(watchdog);
        LockService other = fixture.service();
        String key = node.lockKey("extended");
        LockHandle held = node.lock("extended").acquire(SHORT_LEASE, Duration.ZERO);
        assertThat(held.extend(SHORT_LEASE.multipliedBy(3))).isTrue();
        assertThat(held.isHeld()).isTrue();

        fixture.elapse(SHORT_LEASE.plusSeconds(1), key); // a third of the extended lease: one renewal is due
        watchdog.runPending();
        // The node is cut off from here on: no renewal runs. Its last renewal asked for the extended lease.
        fixture.elapse(SHORT_LEASE.plusSeconds(1), key);
        assertThat(other.lock("extended").tryAcquire(LONG_LEASE)).as("the store kept the extended lease").isEmpty();
        assertThat(held.isHeld()).isTrue();

        fixture.elapse(SHORT_LEASE.multipliedBy(2), key); // past the extended lease since the last renewal
        assertThat(held.isHeld()).as("the holder sees the lease run out when the store does").isFalse();
        LockHandle taken = other.lock("extended").tryAcquire(LONG_LEASE).orElseThrow();
        assertThat(held.extend(LONG_LEASE)).as("the store reports the lease lost").isFalse();
        assertThat(held.isHeld()).isFalse();
        assertThatThrownBy(held::close).isInstanceOf(LockLostException.class).hasMessageContaining("extended");
        assertThat(taken.isHeld()).isTrue();
        taken.close();
    }

    @Test
    void vanishedHolderFreesTheLockAfterItsLease() {
        LockService ghostsJvm = fixture.service();
        String storeKey = ghostsJvm.lockKey("orphan");
        assertThat(ghostsJvm.lockStore.tryLock(storeKey, "ghost-owner", SHORT_LEASE.toMillis()).acquired()).isTrue();
        LockService survivor = fixture.service();
        assertThat(survivor.lock("orphan").tryAcquire(LONG_LEASE)).isEmpty();

        fixture.elapse(SHORT_LEASE.plusSeconds(1), storeKey);
        try (LockHandle h = survivor.lock("orphan").tryAcquire(LONG_LEASE).orElseThrow()) {
            assertThat(h.isHeld()).isTrue();
        }
        assertThat(ghostsJvm.lockStore.unlock(storeKey, "ghost-owner")).isFalse();
    }

    @Test
    void retriedAcquisitionByTheOwnerGetsTheLockAgainWithTheSameToken() {
        // A reply lost after the store ran the acquisition: the retry by the same owner must not be refused.
        LockService service = fixture.service();
        String storeKey = service.lockKey("retried");
        Attempt first = service.lockStore.tryLock(storeKey, "owner-a", LONG_LEASE.toMillis());
        Attempt retry = service.lockStore.tryLock(storeKey, "owner-a", LONG_LEASE.toMillis());

        assertThat(first.acquired()).isTrue();
        assertThat(retry.acquired()).isTrue();
        assertThat(retry.fencingToken()).isEqualTo(first.fencingToken());
        assertThat(service.lockStore.tryLock(storeKey, "owner-b", LONG_LEASE.toMillis()).acquired()).isFalse();
        assertThat(service.lockStore.unlock(storeKey, "owner-a")).isTrue();
    }

    @Test
    void waiterIsWokenByTheReleaseNotByPolling() throws Exception {
        LockService holder = fixture.service();
        LockService waiter = fixture.serviceWakingOnlyBySignal();
        CountDownLatch waiting = new CountDownLatch(1);
        LockHandle held = holder.lock("handoff").acquire(LONG_LEASE, Duration.ZERO);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        Future<Long> acquiredToken = pool.submit(() -> {
            waiting.countDown();
            try (LockHandle h = waiter.lock("handoff").acquire(LONG_LEASE, Duration.ofSeconds(20))) {
                return h.fencingToken();
            }
        });
        waiting.await();
        await().atMost(Duration.ofSeconds(5)).until(() -> waiter.signals().waitingKeys() == 1);
        held.close();
        // The waiter polls once a minute; only the release message can wake it within this bound.
        assertThat(acquiredToken.get(15, TimeUnit.SECONDS)).isGreaterThan(held.fencingToken());
        pool.shutdown();
    }

    @Test
    void sameThreadReentersWithoutAStoreCallAndReleasesWithTheOutermost() {
        Counted counted = countingService();
        LockService service = counted.service();
        LockService other = fixture.service();
        LockHandle outer = service.lock("re").acquire(LONG_LEASE, Duration.ZERO);
        LockHandle inner = service.lock("re").acquire(LONG_LEASE, Duration.ZERO);

        assertThat(counted.store().attempts).hasValue(1);
        assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
        inner.close();
        assertThat(outer.isHeld()).isTrue();
        assertThat(other.lock("re").tryAcquire(LONG_LEASE)).isEmpty();
        outer.close();
        other.lock("re").tryAcquire(LONG_LEASE).orElseThrow().close();
    }

    @Test
    void anotherThreadOfTheSameInstanceIsNotReentrant() throws Exception {
        LockService service = fixture.service();
        try (LockHandle ignored = service.lock("own").acquire(LONG_LEASE, Duration.ZERO)) {
            ExecutorService pool = Executors.newSingleThreadExecutor();
            assertThat(pool.submit(() -> service.lock("own").tryAcquire(LONG_LEASE)).get()).isEmpty();
            pool.shutdown();
        }
    }

    @Test
    void hostileKeysStayInsideTheirHashTag() {
        LockService service = fixture.service();
        assertThat(service.lockKey("order:42")).isEqualTo(fixture.prefix + ":lock:{order:42}");
        assertThat(service.lockKey("x}{y\r\n")).startsWith(fixture.prefix + ":lock:{#").doesNotContain("\r");
        try (LockHandle h = service.lock("x}{y\r\n").acquire(LONG_LEASE, Duration.ZERO)) {
            assertThat(h.key()).isEqualTo("x}{y\r\n");
        }
    }


    /** A service whose store counts the calls made to it, and that counting store. */
    record Counted(LockService service, CountingLockStore store) {
    }

    Counted countingService() {
        CountingLockStore[] counting = new CountingLockStore[1];
        LockService service = fixture.service(store -> counting[0] = new CountingLockStore(store),
                Watchdog.ownScheduler(), LockService.DEFAULT_MAX_POLL_MILLIS);
        return new Counted(service, counting[0]);
    }

    /** Counts holders inside a critical section and how often a second one was found there. */
    static final class Inside {
        final AtomicInteger holders = new AtomicInteger();
        final AtomicInteger overlaps = new AtomicInteger();

        void enter() {
            if (holders.incrementAndGet() != 1) {
                overlaps.incrementAndGet();
            }
        }

        void exit() {
            holders.decrementAndGet();
        }
    }

    /** Runs {@code acquire} on a new thread and waits until it is queued behind this instance's holder. */
    static Future<LockHandle> queueBehindHolder(ExecutorService pool, LockService service, String key,
                                                Duration maxWait) {
        int before = service.queued(service.lockKey(key));
        Future<LockHandle> queued = pool.submit(() -> service.lock(key).acquire(LONG_LEASE, maxWait));
        await().atMost(Duration.ofSeconds(10)).until(() -> service.queued(service.lockKey(key)) == before + 1);
        return queued;
    }

    @Test
    void threadQueuedBehindTheHolderOfItsInstanceGetsTheLockOnRelease() throws Exception {
        LockService service = fixture.service();
        LockService other = fixture.service();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        LockHandle first = service.lock("queue").acquire(LONG_LEASE, Duration.ZERO);
        Future<LockHandle> second = queueBehindHolder(pool, service, "queue", Duration.ofSeconds(30));
        Future<LockHandle> third = queueBehindHolder(pool, service, "queue", Duration.ofSeconds(30));

        first.close();
        LockHandle secondHandle = second.get(15, TimeUnit.SECONDS);
        assertThat(secondHandle.fencingToken()).isGreaterThan(first.fencingToken());
        assertThat(third.isDone()).isFalse();
        assertThat(other.lock("queue").tryAcquire(LONG_LEASE)).isEmpty();
        secondHandle.close();
        LockHandle thirdHandle = third.get(15, TimeUnit.SECONDS);
        assertThat(thirdHandle.fencingToken()).isGreaterThan(secondHandle.fencingToken());
        assertThat(other.lock("queue").tryAcquire(LONG_LEASE)).isEmpty();
        thirdHandle.close();
        other.lock("queue").tryAcquire(LONG_LEASE).orElseThrow().close();
        pool.shutdown();
    }

    @Test
    void queuedThreadThatTimesOutOrIsInterruptedLeavesTheQueueToTheNext() throws Exception {
        LockService service = fixture.service();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        LockHandle holder = service.lock("leave").acquire(LONG_LEASE, Duration.ZERO);
        AtomicReference<Thread> interruptedThread = new AtomicReference<>();
        int before = service.queued(service.lockKey("leave"));
        Future<LockHandle> interrupted = pool.submit(() -> {
            interruptedThread.set(Thread.currentThread());
            return service.lock("leave").acquire(LONG_LEASE, Duration.ofSeconds(30));
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> service.queued(service.lockKey("leave")) == before + 1);
        Future<LockHandle> patient = queueBehindHolder(pool, service, "leave", Duration.ofSeconds(30));
        Future<LockHandle> impatient = queueBehindHolder(pool, service, "leave", Duration.ofSeconds(2));

        assertThatThrownBy(() -> impatient.get(15, TimeUnit.SECONDS)).hasCauseInstanceOf(LockNotAcquiredException.class);
        interruptedThread.get().interrupt();
        assertThatThrownBy(() -> interrupted.get(15, TimeUnit.SECONDS))
                .hasCauseInstanceOf(LockNotAcquiredException.class)
                .hasRootCauseInstanceOf(InterruptedException.class);
        assertThat(service.queued(service.lockKey("leave"))).isEqualTo(1);

        holder.close();
        try (LockHandle h = patient.get(15, TimeUnit.SECONDS)) {
            assertThat(h.fencingToken()).isGreaterThan(holder.fencingToken());
        }
        assertThat(service.queued(service.lockKey("leave"))).isZero();
        fixture.service().lock("leave").tryAcquire(LONG_LEASE).orElseThrow().close();
        pool.shutdown();
    }

    @Test
    void holderWhoseLeaseRanOutStillLetsTheQueuedThreadIn() throws Exception {
        LockService stalled = fixture.stalledService();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        LockHandle holder = stalled.lock("lapsed").acquire(SHORT_LEASE, Duration.ZERO);
        Future<LockHandle> next = queueBehindHolder(pool, stalled, "lapsed", Duration.ofMinutes(10));
        fixture.elapse(SHORT_LEASE.plusSeconds(1), stalled.lockKey("lapsed"));
        assertThat(holder.isHeld()).isFalse();

        assertThatThrownBy(holder::close).isInstanceOf(LockLostException.class);
        try (LockHandle h = next.get(15, TimeUnit.SECONDS)) {
            assertThat(h.fencingToken()).isGreaterThan(holder.fencingToken());
        }
        pool.shutdown();
    }

    @Test
    void threadsOfOneInstancePassingTheLockAroundDoNotStarveAnotherInstance() throws Exception {
        LockService busy = fixture.service();
        LockService other = fixture.service();
        int threads = 4;
        AtomicInteger busyAcquisitions = new AtomicInteger();
        Inside inside = new Inside();
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> loops = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            loops.add(pool.submit(() -> {
                while (!stop.get()) {
                    try (LockHandle ignored = busy.lock("busy").acquire(LONG_LEASE, Duration.ofSeconds(30))) {
                        inside.enter();
                        Thread.yield();
                        inside.exit();
                        busyAcquisitions.incrementAndGet();
                    }
                }
                return null;
            }));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> busyAcquisitions.get() >= 200);

        try (LockHandle ignored = other.lock("busy").acquire(LONG_LEASE, Duration.ofSeconds(20))) {
            inside.enter();
            Thread.yield();
            inside.exit();
        } finally {
            stop.set(true);
            for (Future<?> loop : loops) {
                loop.get(30, TimeUnit.SECONDS);
            }
            pool.shutdown();
        }
        assertThat(inside.overlaps).hasValue(0);
    }
}
