package dev.sluice.internal.lock;

import dev.sluice.LockHandle;
import dev.sluice.LockNotAcquiredException;
import dev.sluice.Permit;
import dev.sluice.SluiceException;

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
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Threads of one JVM passing a lock or permits around through the local queue while others give up at the same
 * moment (waits of a few milliseconds, and interrupts from the other threads): nobody overlaps, every thread
 * finishes (no waiter is left parked), and afterwards the queue is empty and everything can be taken again (no
 * turn or permit is left stranded). Run against each store: a hand-over that grants in one call (Redis) is where a
 * waiter that left after it was taken out would strand what it was handed.
 */
abstract class WaitQueueRaceTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final int THREADS = 6;
    private static final int ROUNDS = 200;

    private final ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    private StoreFixture fixture;
    private LockService service;

    abstract StoreFixture fixture();

    @BeforeEach
    void start() {
        fixture = fixture();
        service = fixture.service();
    }

    @AfterEach
    void close() throws Exception {
        pool.shutdownNow();
        fixture.close();
    }

    /** What one thread does in one round: acquire, run {@code inside} while holding, give back. */
    @FunctionalInterface
    interface Round {
        void run(Duration maxWait, Runnable inside);
    }

    @Test
    void aLockPassedAroundWhileWaitersGiveUpIsNeverHeldTwiceAndNobodyIsStranded() throws Exception {
        Inside inside = new Inside();
        int acquired = race((maxWait, body) -> {
            try (LockHandle ignored = service.lock("race").acquire(LEASE, maxWait)) {
                body.run();
            }
        }, inside);

        assertThat(acquired).isPositive();
        assertThat(inside.most).hasValue(1);
        assertThat(inside.unguarded).isEqualTo(acquired);
        assertThat(service.queued(service.lockKey("race"))).isZero();
        Optional<LockHandle> again = service.lock("race").tryAcquire(LEASE);
        assertThat(again).as("the turn and the lock were given back").isPresent();
        again.get().close();
    }

    @Test
    void permitsPassedAroundWhileWaitersGiveUpNeverExceedTheLimitAndNobodyIsStranded() throws Exception {
        Inside inside = new Inside();
        int acquired = race((maxWait, body) -> {
            try (Permit ignored = service.semaphore("race", 2).acquire(LEASE, maxWait)) {
                body.run();
            }
        }, inside);

        assertThat(acquired).isPositive();
        assertThat(inside.most.get()).isBetween(1, 2);
        assertThat(service.waitingForPermits(service.semaphoreKey("race"))).isZero();
        List<Permit> both = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            both.add(service.semaphore("race", 2).tryAcquire(LEASE).orElseThrow());
        }
        both.forEach(Permit::close);
    }

    @Test
    void aContenderGivingUpPassesItsTurnToTheNextThreadWhichTakesTheLockWhenAnotherNodeReleasesIt() throws Exception {
        LockService otherNode = fixture.service();
        String key = service.lockKey("turn");
        LockHandle elsewhere = otherNode.lock("turn").acquire(LEASE, Duration.ZERO);
        Future<LockHandle> impatient = pool.submit(() -> service.lock("turn").acquire(LEASE, Duration.ofSeconds(2)));
        await().atMost(Duration.ofSeconds(10)).until(() -> service.signals().waitingKeys() == 1); // refused: contends
        Future<LockHandle> patient = pool.submit(() -> service.lock("turn").acquire(LEASE, Duration.ofSeconds(60)));
        await().atMost(Duration.ofSeconds(10)).until(() -> service.queued(key) == 1);

        assertThatThrownBy(() -> impatient.get(15, TimeUnit.SECONDS))
                .hasCauseInstanceOf(LockNotAcquiredException.class);
        elsewhere.close();

        // Parked until its turn came, it would otherwise learn of the release only at its deadline, a minute away.
        try (LockHandle taken = patient.get(15, TimeUnit.SECONDS)) {
            assertThat(taken.fencingToken()).isGreaterThan(elsewhere.fencingToken());
        }
    }

    /**
     * Runs {@link #ROUNDS} rounds on each of {@link #THREADS} threads, most with a wait of up to 2 ms, one in four
     * with a long one (which never times out while every hand-over reaches a waiter that still waits), each thread
     * interrupting another after each round.
     *
     * @return how many rounds acquired
     */
    private int race(Round round, Inside inside) throws Exception {
        AtomicReferenceArray<Thread> threads = new AtomicReferenceArray<>(THREADS);
        AtomicInteger acquired = new AtomicInteger();
        AtomicInteger longWaitsTimedOut = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int self = t;
            done.add(pool.submit(() -> {
                threads.set(self, Thread.currentThread());
                awaitIgnoringInterrupts(start); // a thread already racing may interrupt this one
                ThreadLocalRandom random = ThreadLocalRandom.current();
                for (int i = 0; i < ROUNDS; i++) {
                    Thread.interrupted(); // an interrupt meant for the last round
                    Duration maxWait = random.nextInt(4) == 0 ? Duration.ofSeconds(20)
                            : Duration.ofNanos(random.nextLong(2_000_000));
                    try {
                        round.run(maxWait, () -> {
                            inside.pass();
                            acquired.incrementAndGet();
                        });
                    } catch (SluiceException notAcquired) {
                        // timed out or interrupted: the race under test; but a long wait times out only when what
                        // was handed to a waiter that left is stranded until its lease runs out
                        if (notAcquired.getCause() == null && maxWait.getSeconds() > 0) {
                            longWaitsTimedOut.incrementAndGet();
                        }
                    }
                    Thread other = threads.get(random.nextInt(THREADS));
                    if (other != null && other != Thread.currentThread()) {
                        other.interrupt();
                    }
                }
                Thread.interrupted();
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : done) {
            f.get(120, TimeUnit.SECONDS);
        }
        assertThat(longWaitsTimedOut).as("waits of 20 s that timed out").hasValue(0);
        return acquired.get();
    }

    private static void awaitIgnoringInterrupts(CountDownLatch latch) {
        while (true) {
            try {
                latch.await();
                return;
            } catch (InterruptedException meantForARound) {
                // the rounds clear it anyway
            }
        }
    }

    /**
     * Holders inside at once, the most seen, and a count guarded only by what is held: read, yield, write, which two
     * holders at once would interleave and so lose a pass (for a lock).
     */
    static final class Inside {
        final AtomicInteger holders = new AtomicInteger();
        final AtomicInteger most = new AtomicInteger();
        int unguarded;

        void pass() {
            most.accumulateAndGet(holders.incrementAndGet(), Math::max);
            int seen = unguarded;
            Thread.yield();
            unguarded = seen + 1;
            holders.decrementAndGet();
        }
    }
}
