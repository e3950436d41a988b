package dev.sluice.internal.lock;

import dev.sluice.LockHandle;
import dev.sluice.LockLostException;
import dev.sluice.LockNotAcquiredException;
import dev.sluice.DistributedSemaphore;
import dev.sluice.Permit;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.runtime.SluiceRuntime;
import dev.sluice.test.FaultyProxy;
import dev.sluice.test.RedisServer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Lock and semaphore calls made at the same time travel to Redis together (one pipeline of {@code EVALSHA}s, each
 * its own atomic script): they must keep mutual exclusion and fencing exactly as calls made one at a time, and a
 * batch that Redis does not answer must leave every caller as a lone call would (failed, never holding a lock it
 * does not hold, never stranded).
 */
class RedisLockCombiningIT {

    private static final int THREADS = 16;
    private static final Duration TIMEOUT = Duration.ofMillis(500);
    /** Far above any run; only a stranded caller reaches it. */
    private static final long HANG_SECONDS = 60;

    @RegisterExtension
    static final RedisServer REDIS = RedisServer.standalone();

    /** Two instances of one application on one Redis, so that the store, not a local gate, decides. */
    private SluiceRuntime first;
    private SluiceRuntime second;
    private ExecutorService pool;

    @BeforeEach
    void start() {
        first = runtime();
        second = runtime();
        pool = Executors.newFixedThreadPool(THREADS);
    }

    private static SluiceRuntime runtime() {
        return SluiceRuntime.start(SluiceConfigLoader.load(ConfigSources.of(Map.of(
                "sluice.redis.uri", REDIS.uri(), "sluice.redis.timeout", TIMEOUT.toMillis() + "ms"))));
    }

    @AfterEach
    void stop() throws Exception {
        pool.shutdownNow();
        pool.awaitTermination(HANG_SECONDS, TimeUnit.SECONDS);
        first.close();
        second.close();
    }

    private LockService locks(int thread) {
        return (thread % 2 == 0 ? first : second).locks();
    }

    @Test
    void threadsWithAKeyEachAndOnSharedKeysNeverOverlapAndSeeFencingTokensRise() throws Exception {
        Map<String, Guarded> guarded = new ConcurrentHashMap<>();
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        long readsBefore = stat("total_reads_processed");
        long callsBefore = evalshaCalls();

        onAllThreads(thread -> {
            for (int i = 0; i < 200; i++) {
                String key = i % 2 == 0 ? "own-" + thread : "shared-" + (i % 3);
                Guarded resource = guarded.computeIfAbsent(key, k -> new Guarded());
                try (LockHandle handle = locks(thread).lock(key).acquire(Duration.ofSeconds(30),
                        Duration.ofSeconds(30))) {
                    resource.enter(handle.fencingToken(), key, problems);
                }
            }
        });

        assertThat(problems).as("overlaps and fencing tokens that did not rise").isEmpty();
        assertThat(guarded.values().stream().mapToLong(g -> g.count).sum()).isEqualTo(THREADS * 200L);
        long calls = evalshaCalls() - callsBefore;
        long reads = stat("total_reads_processed") - readsBefore;
        assertThat(reads).as("socket reads of Redis for %d script calls (fewer: some travelled together)", calls)
                .isLessThan(calls);
    }

    @Test
    void withPipeliningOffEveryLockCallTravelsAlone() throws Exception {
        try (SluiceRuntime alone = SluiceRuntime.start(SluiceConfigLoader.load(ConfigSources.of(Map.of(
                "sluice.redis.uri", REDIS.uri(), "sluice.redis.pipelining", "false"))))) {
            long readsBefore = stat("total_reads_processed");
            long callsBefore = evalshaCalls();

            onAllThreads(thread -> {
                for (int i = 0; i < 100; i++) {
                    alone.locks().lock("alone-" + thread).acquire(Duration.ofSeconds(30), Duration.ofSeconds(30))
                            .close();
                }
            });

            long calls = evalshaCalls() - callsBefore;
            assertThat(stat("total_reads_processed") - readsBefore).as("socket reads for %d script calls", calls)
                    .isGreaterThanOrEqualTo(calls);
        }
    }

    @Test
    void semaphorePermitsNeverExceedTheLimitWhenCallsTravelTogether() throws Exception {
        AtomicInteger inside = new AtomicInteger();
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();

        onAllThreads(thread -> {
            DistributedSemaphore semaphore = locks(thread).semaphore("combined", 3);
            for (int i = 0; i < 100; i++) {
                try (Permit permit = semaphore.acquire(Duration.ofSeconds(30), Duration.ofSeconds(30))) {
                    int now = inside.incrementAndGet();
                    if (now > 3) {
                        problems.add(now + " holders of 3 permits");
                    }
                    Thread.yield();
                    inside.decrementAndGet();
                }
            }
        });

        assertThat(problems).isEmpty();
    }

    @Test
    void aBatchRedisDoesNotAnswerFailsEveryCallerAndLeavesNoneHolding() throws Exception {
        REDIS.assumeControllable();
        // Holders from before the hang: their renewals and releases meet the hung Redis too.
        List<LockHandle> held = new ArrayList<>();
        for (int thread = 0; thread < 4; thread++) {
            held.add(locks(thread).lock("held-" + thread).acquire(Duration.ofSeconds(1), Duration.ZERO));
        }
        CyclicBarrier start = new CyclicBarrier(THREADS);
        ConcurrentLinkedQueue<Optional<LockHandle>> outcomes = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        REDIS.pause();
        try {
            onAllThreads(thread -> {
                start.await();
                try {
                    outcomes.add(locks(thread).lock("stalled-" + thread).tryAcquire(Duration.ofSeconds(1)));
                } catch (LockNotAcquiredException expected) {
                    failures.add(expected);
                }
            });
        } finally {
            REDIS.resume();
        }

        assertThat(outcomes).as("acquisitions that claim an answer from a hung Redis").isEmpty();
        assertThat(failures).hasSize(THREADS)
                .allSatisfy(f -> assertThat(f).isInstanceOf(LockNotAcquiredException.class));
        // Redis may run what reached it before the hang after it resumes; nobody thinks it owns those locks, and
        // they are released (by the clean-up) or expire with their lease, after which each key can be taken again.
        // (The circuit breaker, opened by the failures, refuses calls for a moment: those attempts are repeated.)
        onAllThreads(thread -> await().atMost(Duration.ofSeconds(HANG_SECONDS))
                .ignoreExceptionsInstanceOf(LockNotAcquiredException.class).until(() -> {
                    try (LockHandle again = locks(thread).lock("stalled-" + thread).acquire(Duration.ofSeconds(5),
                            Duration.ofSeconds(10))) {
                        return again.isHeld();
                    }
                }));
        // The holders' leases ran out while Redis hung (their renewals failed): none may still claim its lock
        // once Redis has dropped it.
        await().atMost(Duration.ofSeconds(HANG_SECONDS)).untilAsserted(() -> {
            for (LockHandle handle : held) {
                if (handle.isHeld()) {
                    assertThat(REDIS.admin().exists(lockKey(handle.key()))).as("%s held", handle.key()).isTrue();
                }
            }
        });
        for (LockHandle handle : held) {
            closeTolerantly(handle);
        }
    }

    @Test
    void releasesWhoseRepliesAreLostOnABrokenConnectionAreNeverSentAgain() throws Exception {
        try (FaultyProxy link = FaultyProxy.start(REDIS.host(), REDIS.port());
             SluiceRuntime linked = SluiceRuntime.start(SluiceConfigLoader.load(ConfigSources.of(Map.of(
                     "sluice.redis.uri", link.uri(), "sluice.redis.timeout", "5s"))))) {
            List<LockHandle> held = new ArrayList<>();
            for (int thread = 0; thread < THREADS; thread++) {
                held.add(linked.locks().lock("released-" + thread).acquire(Duration.ofSeconds(30), Duration.ZERO));
            }
            REDIS.resetStats();
            link.dropReplies(true);
            CyclicBarrier together = new CyclicBarrier(THREADS);
            ConcurrentLinkedQueue<LockLostException> reportedLost = new ConcurrentLinkedQueue<>();
            List<Future<?>> releases = submitToAllThreads(thread -> {
                together.await();
                try {
                    held.get(thread).close();
                } catch (LockLostException wrong) {
                    reportedLost.add(wrong);
                }
            });
            // Some releases ran and their replies were swallowed: now the connection breaks (no timeout), the
            // case in which a rate-limit decision would be sent again.
            await().atMost(Duration.ofSeconds(HANG_SECONDS)).until(() -> link.swallowedBytes() > 0);
            link.heal();
            link.cutAll();
            for (Future<?> release : releases) {
                release.get(HANG_SECONDS, TimeUnit.SECONDS);
            }

            assertThat(reportedLost).as("locks reported lost though their holder released them").isEmpty();
            assertThat(REDIS.commandCount("evalsha")).as("releases that reached Redis").isLessThanOrEqualTo(THREADS);
        }
    }

    @Test
    void callsCaughtByAKilledRedisFailAndNoHolderOutlivesItsLock() throws Exception {
        REDIS.assumeControllable();
        Map<String, Guarded> guarded = new ConcurrentHashMap<>();
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<LockHandle> stillHeld = new ConcurrentLinkedQueue<>();
        AtomicBoolean killed = new AtomicBoolean();
        CountDownLatch running = new CountDownLatch(THREADS);
        CountDownLatch restarted = new CountDownLatch(1);

        List<Future<?>> workers = submitToAllThreads(thread -> {
            // Kept across the kill, renewed by the watchdog meanwhile.
            stillHeld.add(locks(thread).lock("kept-" + thread).acquire(Duration.ofSeconds(2), Duration.ofSeconds(5)));
            running.countDown();
            String key = "key-" + thread;
            for (int i = 0; !killed.get() || i < 400; i++) {
                try {
                    LockHandle handle = locks(thread).lock(key).acquire(Duration.ofSeconds(2), Duration.ofSeconds(5));
                    guarded.computeIfAbsent(key, k -> new Guarded()).enter(handle.fencingToken(), key, problems);
                    closeTolerantly(handle);
                } catch (LockNotAcquiredException storeDown) {
                    restarted.await();
                }
            }
        });
        running.await();
        REDIS.kill();
        killed.set(true);
        REDIS.start();
        restarted.countDown();
        for (Future<?> worker : workers) {
            worker.get(HANG_SECONDS, TimeUnit.SECONDS);
        }

        assertThat(problems).as("fencing tokens that did not rise").isEmpty();
        // Redis came back empty: the locks kept across the kill are gone, and their holders must learn it.
        await().atMost(Duration.ofSeconds(HANG_SECONDS)).untilAsserted(() -> assertThat(stillHeld)
                .allSatisfy(h -> assertThat(h.isHeld()).as("%s held", h.key())
                        .isEqualTo(REDIS.admin().exists(lockKey(h.key())))));
        stillHeld.forEach(RedisLockCombiningIT::closeTolerantly);
    }

    private String lockKey(String key) {
        return first.locks().lockKey(key);
    }

    private static void closeTolerantly(LockHandle handle) {
        try {
            handle.close();
        } catch (LockLostException lost) {
            // A lease lost while Redis was away is reported, never hidden.
        }
    }

    /**
     * A resource guarded only by the lock: a read, a yield and a write that lose an update when two holders
     * overlap, and the fencing tokens of the holders in the order they entered.
     */
    private static final class Guarded {
        private final AtomicInteger inside = new AtomicInteger();
        private volatile long count;
        private volatile long lastToken;

        void enter(long token, String key, ConcurrentLinkedQueue<String> problems) {
            if (inside.incrementAndGet() != 1) {
                problems.add("two holders of " + key + " at once");
            }
            long read = count;
            if (token <= lastToken) {
                problems.add(key + ": token " + token + " after " + lastToken);
            }
            lastToken = token;
            Thread.yield();
            count = read + 1;
            inside.decrementAndGet();
        }
    }

    @FunctionalInterface
    private interface Work {
        void run(int thread) throws Exception;
    }

    private void onAllThreads(Work work) throws Exception {
        for (Future<?> future : submitToAllThreads(work)) {
            future.get(HANG_SECONDS, TimeUnit.SECONDS);
        }
    }

    private List<Future<?>> submitToAllThreads(Work work) {
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            futures.add(pool.submit(() -> {
                work.run(thread);
                return null;
            }));
        }
        return futures;
    }

    private static long evalshaCalls() {
        return REDIS.commandCount("evalsha");
    }

    private static long stat(String name) {
        for (String line : REDIS.admin().info("stats").split("\r?\n")) {
            if (line.startsWith(name + ":")) {
                return Long.parseLong(line.substring(name.length() + 1).trim());
            }
        }
        throw new AssertionError("INFO stats has no " + name);
    }
}
