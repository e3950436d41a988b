package dev.sluice.internal.lock;

import dev.sluice.DistributedSemaphore;
import dev.sluice.LockLostException;
import dev.sluice.Permit;
import dev.sluice.PermitNotAcquiredException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What every semaphore store must do, run against each store. Admission is checked with barriers, as the
 * MicroProfile Fault Tolerance TCK checks its bulkheads: holders park inside until the test lets them go.
 */
abstract class SemaphoreContractTest {

    static final Duration LEASE = Duration.ofSeconds(30);
    /** A lease the tests let run out with {@link StoreFixture#elapse}; long enough that real time never does. */
    static final Duration SHORT_LEASE = Duration.ofSeconds(3);

    StoreFixture fixture;

    abstract StoreFixture fixture();

    @BeforeEach
    void startFixture() {
        fixture = fixture();
    }

    @AfterEach
    void closeFixture() throws Exception {
        fixture.close();
    }

    @Test
    void admitsPermitsHoldersThenMakesTheNextWaitUntilOneReturns() throws Exception {
        int permits = 3;
        LockService a = fixture.service();
        LockService b = fixture.service();
        ExecutorService pool = Executors.newFixedThreadPool(permits + 1);
        CyclicBarrier allInside = new CyclicBarrier(permits + 1);
        CountDownLatch letGo = new CountDownLatch(1);
        List<Future<?>> holders = new ArrayList<>();
        for (int i = 0; i < permits; i++) {
            DistributedSemaphore semaphore = (i % 2 == 0 ? a : b).semaphore("pdf", permits);
            holders.add(pool.submit(() -> {
                try (Permit p = semaphore.acquire(LEASE, Duration.ZERO)) {
                    allInside.await(10, TimeUnit.SECONDS);
                    letGo.await();
                }
                return null;
            }));
        }
        allInside.await(10, TimeUnit.SECONDS);

        assertThat(b.semaphore("pdf", permits).tryAcquire(LEASE)).isEmpty();
        CountDownLatch nextInside = new CountDownLatch(1);
        Future<?> next = pool.submit(() -> {
            try (Permit p = a.semaphore("pdf", permits).acquire(LEASE, Duration.ofSeconds(20))) {
                nextInside.countDown();
            }
            return null;
        });
        assertThat(nextInside.await(200, TimeUnit.MILLISECONDS)).isFalse();

        letGo.countDown();
        assertThat(nextInside.await(15, TimeUnit.SECONDS)).isTrue();
        next.get(5, TimeUnit.SECONDS);
        for (Future<?> h : holders) {
            h.get(5, TimeUnit.SECONDS);
        }
        pool.shutdown();
    }

    @Test
    void neverMoreThanPermitsHoldersUnderStress() throws Exception {
        int permits = 4;
        int threads = 32;
        int perThread = 40;
        LockService a = fixture.service();
        LockService b = fixture.service();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger maxInside = new AtomicInteger();
        AtomicInteger completed = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            DistributedSemaphore semaphore = (t % 2 == 0 ? a : b).semaphore("stress", permits);
            done.add(pool.submit(() -> {
                start.await();
                for (int i = 0; i < perThread; i++) {
                    try (Permit p = semaphore.acquire(LEASE, Duration.ofSeconds(60))) {
                        int now = inside.incrementAndGet();
                        maxInside.accumulateAndGet(now, Math::max);
                        Thread.yield();
                        inside.decrementAndGet();
                        completed.incrementAndGet();
                    }
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : done) {
            f.get(90, TimeUnit.SECONDS);
        }
        pool.shutdown();

        assertThat(completed).hasValue(threads * perThread);
        assertThat(maxInside.get()).isBetween(1, permits);
    }

    @Test
    void timesOutWithNameAndWaitedTime() {
        LockService a = fixture.service();
        try (Permit ignored = a.semaphore("one", 1).acquire(LEASE, Duration.ZERO)) {
            assertThatThrownBy(() -> fixture.service().semaphore("one", 1).acquire(LEASE, Duration.ofMillis(120)))
                    .isInstanceOfSatisfying(PermitNotAcquiredException.class, e -> {
                        assertThat(e.name()).isEqualTo("one");
                        assertThat(e.waited()).isGreaterThanOrEqualTo(Duration.ofMillis(120));
                    });
        }
    }

    @Test
    void expiredPermitIsReclaimedAndItsHolderLearnsItWhenReturningIt() {
        LockService stalled = fixture.stalledService();
        LockService other = fixture.service();
        Permit old = stalled.semaphore("solo", 1).acquire(SHORT_LEASE, Duration.ZERO);
        assertThat(other.semaphore("solo", 1).tryAcquire(LEASE)).isEmpty();

        fixture.elapse(SHORT_LEASE.plusSeconds(1), stalled.semaphoreKey("solo"));
        try (Permit current = other.semaphore("solo", 1).tryAcquire(LEASE).orElseThrow()) {
            assertThat(old.isHeld()).isFalse();
            assertThatThrownBy(old::close).isInstanceOf(LockLostException.class).hasMessageContaining("solo");
            assertThat(current.isHeld()).isTrue();
            assertThat(fixture.service().semaphore("solo", 1).tryAcquire(LEASE)).isEmpty();
        }
    }

    @Test
    void watchdogKeepsAShortPermitLeaseAlive() {
        ManualScheduler watchdog = new ManualScheduler();
        LockService holder = fixture.serviceRenewingBy(watchdog);
        LockService contender = fixture.service();
        try (Permit p = holder.semaphore("slow", 1).acquire(SHORT_LEASE, Duration.ZERO)) {
            for (int third = 1; third <= 9; third++) {
                // The scenario: a holder running three leases long while another keeps trying.
                fixture.elapse(SHORT_LEASE.dividedBy(3), holder.semaphoreKey("slow"));
                watchdog.runPending();
                assertThat(contender.semaphore("slow", 1).tryAcquire(LEASE)).as("after %d thirds", third).isEmpty();
                assertThat(p.isHeld()).isTrue();
            }
        }
        contender.semaphore("slow", 1).tryAcquire(LEASE).orElseThrow().close();
    }

    @Test
    void loweredPermitsTakeEffectAtTheNextAcquisition() {
        LockService service = fixture.service();
        Permit first = service.semaphore("resized", 2).acquire(LEASE, Duration.ZERO);
        Permit second = service.semaphore("resized", 2).acquire(LEASE, Duration.ZERO);
        first.close();
        assertThat(service.semaphore("resized", 1).tryAcquire(LEASE)).isEmpty();
        second.close();
        Optional<Permit> afterBoth = service.semaphore("resized", 1).tryAcquire(LEASE);
        assertThat(afterBoth).isPresent();
        afterBoth.get().close();
    }

    @Test
    void vanishedHolderFreesItsPermitAfterItsLease() {
        LockService ghostsJvm = fixture.service();
        String storeKey = ghostsJvm.semaphoreKey("orphan");
        assertThat(ghostsJvm.semaphoreStore.tryAcquire(storeKey, "ghost", 1, SHORT_LEASE.toMillis()).acquired()).isTrue();
        LockService survivor = fixture.service();
        assertThat(survivor.semaphore("orphan", 1).tryAcquire(LEASE)).isEmpty();
        fixture.elapse(SHORT_LEASE.plusSeconds(1), storeKey);
        try (Permit p = survivor.semaphore("orphan", 1).tryAcquire(LEASE).orElseThrow()) {
            assertThat(p.isHeld()).isTrue();
        }
    }

    @Test
    void waiterIsWokenByTheReturnNotByPolling() throws Exception {
        LockService holder = fixture.service();
        LockService waiter = fixture.serviceWakingOnlyBySignal();
        Permit held = holder.semaphore("wake", 1).acquire(LEASE, Duration.ZERO);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        Future<Boolean> acquired = pool.submit(() -> {
            try (Permit p = waiter.semaphore("wake", 1).acquire(LEASE, Duration.ofSeconds(20))) {
                return p.isHeld();
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> waiter.signals().waitingKeys() == 1);
        held.close();
        assertThat(acquired.get(15, TimeUnit.SECONDS)).isTrue();
        pool.shutdown();
    }

    /** Counts the holders inside and the most seen at once; a read-yield-write counter loses updates on overlap. */
    static final class Inside {
        final AtomicInteger holders = new AtomicInteger();
        final AtomicInteger most = new AtomicInteger();
        /** Incremented non-atomically by each holder, so two holders at once would lose an increment. */
        final AtomicInteger unguarded = new AtomicInteger();

        void pass() {
            most.accumulateAndGet(holders.incrementAndGet(), Math::max);
            int seen = unguarded.get();
            Thread.yield();
            unguarded.set(seen + 1);
            holders.decrementAndGet();
        }
    }

    @Test
    void oneHolderAtATimeWhileThreadsOfTwoInstancesPassASinglePermitAround() throws Exception {
        int threads = 8;
        int perThread = 40;
        LockService a = fixture.service();
        LockService b = fixture.service();
        Inside inside = new Inside();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            DistributedSemaphore semaphore = (t % 2 == 0 ? a : b).semaphore("mutex", 1);
            done.add(pool.submit(() -> {
                start.await();
                for (int i = 0; i < perThread; i++) {
                    try (Permit p = semaphore.acquire(LEASE, Duration.ofSeconds(60))) {
                        inside.pass();
                    }
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : done) {
            f.get(90, TimeUnit.SECONDS);
        }
        pool.shutdown();

        assertThat(inside.most).hasValue(1);
        assertThat(inside.unguarded).hasValue(threads * perThread);
        assertThat(a.waitingForPermits(a.semaphoreKey("mutex"))).isZero();
    }

    @Test
    void neverMoreThanPermitsHoldersWhileThreadsOfOneInstancePassPermitsAround() throws Exception {
        int permits = 4;
        int threads = 16;
        int perThread = 40;
        LockService service = fixture.service();
        DistributedSemaphore semaphore = service.semaphore("local", permits);
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger completed = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            done.add(pool.submit(() -> {
                start.await();
                for (int i = 0; i < perThread; i++) {
                    try (Permit p = semaphore.acquire(LEASE, Duration.ofSeconds(60))) {
                        most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                        Thread.yield();
                        inside.decrementAndGet();
                        completed.incrementAndGet();
                    }
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : done) {
            f.get(90, TimeUnit.SECONDS);
        }
        pool.shutdown();

        assertThat(completed).hasValue(threads * perThread);
        assertThat(most.get()).isBetween(1, permits);
        assertThat(service.waitingForPermits(service.semaphoreKey("local"))).isZero();
        // Every permit was returned: all of them can be taken again by another instance.
        LockService other = fixture.service();
        List<Permit> all = new ArrayList<>();
        for (int i = 0; i < permits; i++) {
            all.add(other.semaphore("local", permits).tryAcquire(LEASE).orElseThrow());
        }
        assertThat(other.semaphore("local", permits).tryAcquire(LEASE)).isEmpty();
        all.forEach(Permit::close);
    }

    /** Starts an acquisition on {@code service} and returns once it waits there (behind holders of its instance). */
    static Future<Permit> waitForPermit(ExecutorService pool, LockService service, String name, int permits,
                                        Duration maxWait) {
        String key = service.semaphoreKey(name);
        int before = service.waitingForPermits(key);
        Future<Permit> waiting = pool.submit(() -> service.semaphore(name, permits).acquire(LEASE, maxWait));
        await().atMost(Duration.ofSeconds(10)).until(() -> service.waitingForPermits(key) == before + 1);
        return waiting;
    }

    @Test
    void threadsWaitingForAPermitGetItInArrivalOrderAsHoldersOfTheirInstanceReturnThem() throws Exception {
        LockService service = fixture.service();
        LockService other = fixture.service();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        Permit first = service.semaphore("queue", 1).acquire(LEASE, Duration.ZERO);
        Future<Permit> second = waitForPermit(pool, service, "queue", 1, Duration.ofSeconds(30));
        Future<Permit> third = waitForPermit(pool, service, "queue", 1, Duration.ofSeconds(30));

        first.close();
        Permit secondPermit = second.get(15, TimeUnit.SECONDS);
        assertThat(secondPermit.isHeld()).isTrue();
        assertThat(third.isDone()).isFalse();
        assertThat(other.semaphore("queue", 1).tryAcquire(LEASE)).isEmpty();
        secondPermit.close();
        Permit thirdPermit = third.get(15, TimeUnit.SECONDS);
        assertThat(other.semaphore("queue", 1).tryAcquire(LEASE)).isEmpty();
        thirdPermit.close();
        assertThat(service.waitingForPermits(service.semaphoreKey("queue"))).isZero();
        other.semaphore("queue", 1).tryAcquire(LEASE).orElseThrow().close();
        pool.shutdown();
    }

    @Test
    void waitingThreadThatTimesOutOrIsInterruptedLeavesTheQueueToTheNext() throws Exception {
        LockService service = fixture.service();
        String key = service.semaphoreKey("leave");
        ExecutorService pool = Executors.newFixedThreadPool(3);
        Permit holder = service.semaphore("leave", 1).acquire(LEASE, Duration.ZERO);
        AtomicReference<Thread> interruptedThread = new AtomicReference<>();
        Future<Permit> interrupted = pool.submit(() -> {
            interruptedThread.set(Thread.currentThread());
            return service.semaphore("leave", 1).acquire(LEASE, Duration.ofSeconds(30));
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> service.waitingForPermits(key) == 1);
        Future<Permit> patient = waitForPermit(pool, service, "leave", 1, Duration.ofSeconds(30));
        Future<Permit> impatient = waitForPermit(pool, service, "leave", 1, Duration.ofSeconds(2));

        assertThatThrownBy(() -> impatient.get(15, TimeUnit.SECONDS))
                .hasCauseInstanceOf(PermitNotAcquiredException.class);
        interruptedThread.get().interrupt();
        assertThatThrownBy(() -> interrupted.get(15, TimeUnit.SECONDS))
                .hasCauseInstanceOf(PermitNotAcquiredException.class)
                .hasRootCauseInstanceOf(InterruptedException.class);
        assertThat(service.waitingForPermits(key)).isEqualTo(1);

        holder.close();
        try (Permit p = patient.get(15, TimeUnit.SECONDS)) {
            assertThat(p.isHeld()).isTrue();
        }
        assertThat(service.waitingForPermits(key)).isZero();
        fixture.service().semaphore("leave", 1).tryAcquire(LEASE).orElseThrow().close();
        pool.shutdown();
    }

    @Test
    void holderWhosePermitExpiredStillLetsTheWaitingThreadIn() throws Exception {
        LockService stalled = fixture.stalledService();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        Permit holder = stalled.semaphore("lapsed", 1).acquire(SHORT_LEASE, Duration.ZERO);
        Future<Permit> next = waitForPermit(pool, stalled, "lapsed", 1, Duration.ofMinutes(10));
        fixture.elapse(SHORT_LEASE.plusSeconds(1), stalled.semaphoreKey("lapsed"));
        assertThat(holder.isHeld()).isFalse();

        assertThatThrownBy(holder::close).isInstanceOf(LockLostException.class);
        try (Permit p = next.get(15, TimeUnit.SECONDS)) {
            assertThat(fixture.service().semaphore("lapsed", 1).tryAcquire(LEASE)).isEmpty();
        }
        pool.shutdown();
    }

    @Test
    void threadsOfOneInstancePassingPermitsAroundDoNotStarveAnotherInstance() throws Exception {
        int permits = 2;
        int threads = 6;
        LockService busy = fixture.service();
        LockService other = fixture.service();
        AtomicInteger busyAcquisitions = new AtomicInteger();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> loops = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            loops.add(pool.submit(() -> {
                while (!stop.get()) {
                    try (Permit ignored = busy.semaphore("busy", permits).acquire(LEASE, Duration.ofSeconds(30))) {
                        most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                        Thread.yield();
                        inside.decrementAndGet();
                        busyAcquisitions.incrementAndGet();
                    }
                }
                return null;
            }));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> busyAcquisitions.get() >= 200);

        try (Permit ignored = other.semaphore("busy", permits).acquire(LEASE, Duration.ofSeconds(20))) {
            most.accumulateAndGet(inside.incrementAndGet(), Math::max);
            Thread.yield();
            inside.decrementAndGet();
        } finally {
            stop.set(true);
            for (Future<?> loop : loops) {
                loop.get(30, TimeUnit.SECONDS);
            }
            pool.shutdown();
        }
        assertThat(most.get()).isBetween(1, permits);
    }
}
