package dev.sluice.internal.limit;

import dev.sluice.StoreUnavailableException;
import dev.sluice.RateLimitDecision;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.runtime.SluiceRuntime;
import dev.sluice.test.RedisServer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.LongStream;

import static dev.sluice.internal.limit.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Decisions asked for at the same time travel to Redis together ({@link RedisRateLimitStore}'s combining): they
 * must decide exactly as calls made one at a time would, answer every caller, and keep the failure behaviour of
 * one call per connection (script recovery, one retry after a restart, one timeout per caller on a hung Redis).
 */
class RedisRateLimitCombiningIT {

    private static final int THREADS = 16;
    private static final Duration TIMEOUT = Duration.ofMillis(1000);
    /** Far above any run; only a stranded caller reaches it. */
    private static final long HANG_SECONDS = 60;

    @RegisterExtension
    static final RedisServer REDIS = RedisServer.standalone();

    private SluiceRuntime runtime;
    private RateLimitEngine engine;
    private ExecutorService pool;

    @BeforeEach
    void start() {
        runtime = SluiceRuntime.start(SluiceConfigLoader.load(ConfigSources.of(Map.of(
                "sluice.redis.uri", REDIS.uri(), "sluice.redis.timeout", TIMEOUT.toMillis() + "ms"))));
        engine = runtime.rateLimits();
        pool = Executors.newFixedThreadPool(THREADS);
    }

    @AfterEach
    void stop() {
        pool.shutdownNow();
        runtime.close();
    }

    @Test
    void concurrentCallersOnOneHotKeyAreChargedExactlyAsOneAtATime() throws Exception {
        // No token comes back during the test: each admitted call must see a different remaining count.
        PolicyConfig hot = policy("hot", 1000, Duration.ofHours(1));
        List<RateLimitDecision> decisions = fromAllThreads(150, (thread, i, random) -> engine.decide(hot, "one", 1));

        List<Long> remaining = decisions.stream().filter(RateLimitDecision::allowed)
                .map(RateLimitDecision::remaining).sorted().toList();
        assertThat(remaining).as("remaining counts of admitted calls")
                .isEqualTo(LongStream.range(0, 1000).boxed().toList());
        assertThat(decisions).filteredOn(d -> !d.allowed()).hasSize(THREADS * 150 - 1000)
                .allSatisfy(d -> assertThat(d.remaining()).isZero());
        assertThat(REDIS.clientCount("sluice")).as("connections: decisions were combined on at most "
                + RedisRateLimitStore.DEFAULT_SENDERS + ", not one per thread")
                .isLessThanOrEqualTo(RedisRateLimitStore.DEFAULT_SENDERS);
    }

    @Test
    void concurrentCallersOnManyKeysGetWhatTheInProcessStoreGivesTheSameCallsPerKey() throws Exception {
        PolicyConfig spread = policy("spread", 40, 40, Duration.ofHours(1), 1000, Duration.ofHours(2));
        Map<String, List<RateLimitDecision>> byKey = new ConcurrentHashMap<>();
        fromAllThreads(150, (thread, i, random) -> {
            String key = "k" + random.nextInt(25);
            RateLimitDecision decision = engine.decide(spread, key, 1);
            byKey.computeIfAbsent(key, k -> java.util.Collections.synchronizedList(new ArrayList<>())).add(decision);
            return decision;
        });

        // Calls of one key were decided in some order; played one at a time in the in-process store, the same
        // number of calls gives the same multiset of decisions whatever the order (cost 1, no refill).
        RateLimitEngine local = Engines.over(new InProcessRateLimitStore(), "sluice");
        for (Map.Entry<String, List<RateLimitDecision>> key : byKey.entrySet()) {
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < key.getValue().size(); i++) {
                expected.add(summary(local.decide(spread, key.getKey(), 1)));
            }
            assertThat(key.getValue().stream().map(RedisRateLimitCombiningIT::summary).toList())
                    .as("decisions for %s", key.getKey()).containsExactlyInAnyOrderElementsOf(expected);
        }
    }

    @Test
    void aScriptFlushUnderLoadIsRecoveredAndNoCallerSeesIt() throws Exception {
        PolicyConfig hot = policy("flushed", 1_000_000, Duration.ofHours(1));
        List<RateLimitDecision> decisions = fromAllThreads(300, (thread, i, random) -> {
            if (thread == 0 && i % 50 == 0) {
                REDIS.admin().scriptFlush();
            }
            return engine.decide(hot, "one", 1);
        });

        assertThat(decisions).hasSize(THREADS * 300).allSatisfy(d -> assertThat(d.allowed()).isTrue());
        assertThat(REDIS.commandCount("script|load")).as("the script was loaded again").isPositive();
        assertThat(REDIS.commandCount("eval")).isZero();
    }

    @Test
    void aHungRedisCostsEveryCallerOneTimeoutNotOneForEachBatchAheadOfIt() throws Exception {
        REDIS.assumeControllable();
        PolicyConfig hot = policy("hung", 1_000_000, Duration.ofHours(1));
        engine.decide(hot, "one", 1);
        REDIS.pause();
        long[] waited = new long[THREADS];
        List<Future<Throwable>> failures;
        try {
            failures = fromEachThread(thread -> {
                long started = System.nanoTime();
                try {
                    engine.decide(hot, "one", 1);
                    return null;
                } catch (RuntimeException e) {
                    return e;
                } finally {
                    waited[thread] = System.nanoTime() - started;
                }
            });
            for (Future<Throwable> failure : failures) {
                assertThat(failure.get(HANG_SECONDS, TimeUnit.SECONDS)).isInstanceOf(StoreUnavailableException.class);
            }
        } finally {
            REDIS.resume();
        }
        long longest = Arrays.stream(waited).max().orElseThrow();
        System.out.printf("hung Redis, %d callers: longest wait %d ms (timeout %d ms)%n", THREADS,
                longest / 1_000_000, TIMEOUT.toMillis());
        // Queued for a second batch, a caller would wait two timeouts.
        assertThat(Duration.ofNanos(longest)).isLessThan(TIMEOUT.multipliedBy(3).dividedBy(2));
        awaitTheBreakersProbe(hot);
    }

    @Test
    void redisKilledWithABatchInFlightFailsItsCallersAndARestartIsInvisibleToTheNextOnes() throws Exception {
        REDIS.assumeControllable();
        PolicyConfig hot = policy("killed", 1_000_000, Duration.ofHours(1));
        engine.decide(hot, "one", 1);
        REDIS.pause();
        List<Thread> callers = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<Future<Throwable>> failures = fromEachThread(thread -> {
            callers.add(Thread.currentThread());
            try {
                engine.decide(hot, "one", 1);
                return null;
            } catch (RuntimeException e) {
                return e;
            }
        });
        // Every caller is either reading a reply that will not come or queued behind one.
        await().atMost(Duration.ofSeconds(30)).until(() -> callers.size() == THREADS
                && callers.stream().allMatch(RedisRateLimitCombiningIT::waitingOnRedis));
        REDIS.kill();
        for (Future<Throwable> failure : failures) {
            assertThat(failure.get(HANG_SECONDS, TimeUnit.SECONDS)).isInstanceOf(StoreUnavailableException.class);
        }
        REDIS.start();
        // The failures opened the application's circuit breaker; its probe goes first, on a dead connection that
        // is retried on a fresh one.
        awaitTheBreakersProbe(hot);

        // The pool's other connections all died with Redis too; the first batch on them is retried on a fresh one.
        List<RateLimitDecision> after = fromAllThreads(20, (thread, i, random) -> engine.decide(hot, "one", 1));
        assertThat(after).hasSize(THREADS * 20).allSatisfy(d -> assertThat(d.allowed()).isTrue());
    }

    /** Waits (polling) until the breaker's probe has found Redis back and the call was decided. */
    private void awaitTheBreakersProbe(PolicyConfig policy) {
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> {
            try {
                return engine.decide(policy, "one", 1).allowed();
            } catch (StoreUnavailableException e) {
                return false;
            }
        });
    }

    private static boolean waitingOnRedis(Thread thread) {
        if (thread.getState() == Thread.State.WAITING) {
            return true;
        }
        return Arrays.stream(thread.getStackTrace()).anyMatch(f -> f.getMethodName().contains("read")
                && f.getClassName().contains("Socket"));
    }

    private static String summary(RateLimitDecision d) {
        return d.allowed() + "/" + d.remaining() + "/" + d.limit();
    }

    @FunctionalInterface
    private interface Step {
        RateLimitDecision call(int thread, int index, Random random) throws Exception;
    }

    @FunctionalInterface
    private interface Once<T> {
        T call(int thread) throws Exception;
    }

    /** Every thread makes {@code calls} calls, starting together, with random gaps; all decisions returned. */
    private List<RateLimitDecision> fromAllThreads(int calls, Step step) throws Exception {
        long seed = System.nanoTime();
        List<Future<List<RateLimitDecision>>> results = fromEachThread(thread -> {
            Random random = new Random(seed + thread);
            List<RateLimitDecision> decisions = new ArrayList<>();
            for (int i = 0; i < calls; i++) {
                if (random.nextInt(3) == 0) {
                    LockSupport.parkNanos(random.nextInt(200_000));
                }
                decisions.add(step.call(thread, i, random));
            }
            return decisions;
        });
        List<RateLimitDecision> all = new ArrayList<>();
        for (Future<List<RateLimitDecision>> result : results) {
            all.addAll(result.get(HANG_SECONDS, TimeUnit.SECONDS));
        }
        return all;
    }

    private <T> List<Future<T>> fromEachThread(Once<T> body) {
        CyclicBarrier start = new CyclicBarrier(THREADS);
        List<Future<T>> futures = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            futures.add(pool.submit(() -> {
                start.await();
                return body.call(thread);
            }));
        }
        return futures;
    }
}
