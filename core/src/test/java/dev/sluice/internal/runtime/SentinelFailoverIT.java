package dev.sluice.internal.runtime;

import dev.sluice.LockHandle;
import dev.sluice.LockLostException;
import dev.sluice.LockNotAcquiredException;
import dev.sluice.RateLimitDecision;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.StoreUnavailableException;
import dev.sluice.test.RedisProcess;
import dev.sluice.test.RedisStats;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Sentinel fail-over under load: one master, one replica, three sentinels with fast fail-over settings, a runtime
 * in Sentinel mode with threads deciding rate limits and taking a lock, and the master killed with {@code kill -9}.
 *
 * <p>What must hold: rate limiting resumes on the promoted replica by itself (which lacks the Lua scripts, so the
 * NOSCRIPT reload runs there); during the gap rate-limit calls fail fast as "store unavailable" (for the failure
 * mode to apply) and locks fail closed, so a guarded section never runs unguarded and never overlaps another; fencing
 * tokens keep increasing across the fail-over. The longest interruption is printed; the soak profile
 * ({@code -Psoak}) repeats the scenario with a longer load phase (system property
 * {@code sluice.soak.seconds}).
 */
class SentinelFailoverIT {

    private static final String MASTER_NAME = "mymaster";
    /** How long the load runs after the fail-over; stretched by the soak profile. */
    private static final Duration AFTER_FAILOVER = Duration.ofSeconds(Long.getLong("sluice.soak.seconds", 1));

    private final List<RedisProcess> processes = new ArrayList<>();
    private SluiceRuntime runtime;

    @AfterEach
    void stopAll() {
        if (runtime != null) {
            runtime.close();
        }
        for (int i = processes.size() - 1; i >= 0; i--) {
            processes.get(i).close();
        }
    }

    @Test
    void rateLimitsResumeOnThePromotedReplicaAndLocksFailClosedMeanwhile() throws Exception {
        RedisProcess master = start(RedisProcess.start());
        RedisProcess replica = start(RedisProcess.start("--replicaof", master.host(), String.valueOf(master.port())));
        await().atMost(Duration.ofSeconds(15)).until(() -> info(replica, "replication").contains("master_link_status:up"));
        List<RedisProcess> sentinels = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            sentinels.add(start(RedisProcess.startSentinel(List.of(
                    "sentinel monitor " + MASTER_NAME + " " + master.host() + " " + master.port() + " 2",
                    "sentinel down-after-milliseconds " + MASTER_NAME + " 1000",
                    "sentinel failover-timeout " + MASTER_NAME + " 3000",
                    "sentinel parallel-syncs " + MASTER_NAME + " 1"))));
        }
        // A fail-over needs the sentinels to know the replica and each other (hello messages every 2 s).
        await().atMost(Duration.ofSeconds(30)).until(() -> sentinels.stream().allMatch(s -> {
            Map<String, String> state = sentinelMaster(s);
            return "1".equals(state.get("num-slaves")) && "2".equals(state.get("num-other-sentinels"));
        }));

        SluiceConfig config = SluiceConfigLoader.load(ConfigSources.of(Map.of(
                "sluice.redis.sentinels", String.join(",", sentinels.stream().map(RedisProcess::address).toList()),
                "sluice.redis.master-name", MASTER_NAME,
                "sluice.redis.timeout", "500ms",
                "sluice.limit.steady.rate", "1000000/1s",
                "sluice.limit.strict.rate", "5/1h")));
        runtime = SluiceRuntime.start(config);
        PolicyConfig steady = config.policy("steady").orElseThrow();
        PolicyConfig strict = config.policy("strict").orElseThrow();
        assertThat(runtime.rateLimits().decide(strict, "before", 1).allowed()).isTrue();
        // The promoted replica must then load the scripts itself: NOSCRIPT handling is what is being tested.
        onNode(replica, Jedis::scriptFlush);

        Load load = new Load();
        ExecutorService pool = Executors.newFixedThreadPool(6);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int thread = t;
            workers.add(pool.submit(() -> load.decideRateLimits(runtime, steady, thread)));
        }
        for (int t = 0; t < 2; t++) {
            workers.add(pool.submit(() -> load.takeTheLock(runtime)));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> load.decided.get() > 200 && load.locked.get() > 20);

        long killedAt = System.nanoTime();
        master.kill();
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
                .until(() -> sentinels.stream().anyMatch(s -> currentMaster(s) == replica.port()));
        long promotedAt = System.nanoTime();
        long decidedAtPromotion = load.decided.get();
        long lockedAtPromotion = load.locked.get();
        await().atMost(Duration.ofSeconds(30)).until(() -> load.decided.get() > decidedAtPromotion + 200
                && load.locked.get() > lockedAtPromotion + 20);
        long resumedAt = System.nanoTime();
        TimeUnit.NANOSECONDS.sleep(AFTER_FAILOVER.toNanos()); // the soak scenario: keep the load on the new master
        load.stop.set(true);
        for (Future<?> worker : workers) {
            worker.get(30, TimeUnit.SECONDS);
        }
        pool.shutdown();

        long[] rateLimitGap = load.longestRateLimitGap.get();
        long[] lockGap = load.longestLockGap.get();
        System.out.printf("Sentinel fail-over: a sentinel named the new master %d ms after kill -9; longest "
                        + "rate-limit interruption %d ms (first decision on the new master %d ms after kill -9); "
                        + "longest lock interruption %d ms (first lock on the new master %d ms after kill -9); "
                        + "200 more decisions done %d ms after kill -9; %d decisions, %d failed fast as unavailable; "
                        + "%d locks taken, %d refused while Redis was away (fail closed), %d timed out, %d lost on "
                        + "release%n",
                millis(promotedAt - killedAt), millis(rateLimitGap[0]), millis(rateLimitGap[1] - killedAt),
                millis(lockGap[0]), millis(lockGap[1] - killedAt), millis(resumedAt - killedAt), load.decided.get(),
                load.unavailable.get(), load.locked.get(), load.lockFailedClosed.get(), load.lockTimedOut.get(),
                load.lockLost.get());

        assertThat(load.unexpected).as("only 'store unavailable' and lock exceptions").isEmpty();
        assertThat(load.overlaps).as("guarded sections overlapping").hasValue(0);
        assertThat(load.counter.get()).as("non-atomic counter under the lock").isEqualTo(load.locked.get());
        assertThat(load.tokenRegressions).as("fencing tokens going backwards").hasValue(0);
        assertThat(load.unavailable.get()).as("calls failed while the master was dead").isPositive();
        assertThat(load.lockFailedClosed.get()).as("lock attempts refused while the master was dead").isPositive();
        long scriptLoads = onNode(replica, j -> RedisStats.commandCount(j.info("commandstats"), "script|load"));
        assertThat(scriptLoads)
                .as("scripts loaded on the promoted replica after NOSCRIPT").isPositive();
        // Limiting, not just answering: a fresh key on the new master admits its burst of 5 and then denies.
        List<Boolean> afterwards = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            afterwards.add(runtime.rateLimits().decide(strict, "after", 1).allowed());
        }
        assertThat(afterwards).containsExactly(true, true, true, true, true, false);
        RateLimitDecision denied = runtime.rateLimits().decide(strict, "after", 1);
        assertThat(denied.allowed()).isFalse();
        boolean onNewMaster = onNode(replica, j -> j.exists("sluice:rl:{strict:after}"));
        assertThat(onNewMaster).as("bucket on the new master").isTrue();
    }

    /** What the worker threads do and count. */
    private static final class Load {
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicLong decided = new AtomicLong();
        final AtomicLong unavailable = new AtomicLong();
        final AtomicLong lastDecision = new AtomicLong(System.nanoTime());
        /** The longest time without a successful decision by any thread, and when it ended (nano time). */
        final AtomicReference<long[]> longestRateLimitGap = new AtomicReference<>(new long[] {0, 0});
        final AtomicLong locked = new AtomicLong();
        final AtomicLong lockFailedClosed = new AtomicLong();
        final AtomicLong lockTimedOut = new AtomicLong();
        final AtomicLong lockLost = new AtomicLong();
        final AtomicLong lastLock = new AtomicLong(System.nanoTime());
        final AtomicReference<long[]> longestLockGap = new AtomicReference<>(new long[] {0, 0});
        final AtomicInteger occupants = new AtomicInteger();
        final AtomicInteger overlaps = new AtomicInteger();
        final AtomicInteger tokenRegressions = new AtomicInteger();
        final AtomicLong counter = new AtomicLong();
        final AtomicLong lastToken = new AtomicLong(Long.MIN_VALUE);
        final Set<Throwable> unexpected = ConcurrentHashMap.newKeySet();

        void decideRateLimits(SluiceRuntime runtime, PolicyConfig policy, int thread) {
            int i = 0;
            while (!stop.get()) {
                try {
                    runtime.rateLimits().decide(policy, "client-" + thread + "-" + (i++ % 50), 1);
                    decided.incrementAndGet();
                    succeeded(lastDecision, longestRateLimitGap);
                } catch (StoreUnavailableException e) {
                    unavailable.incrementAndGet();
                    pace();
                } catch (RuntimeException e) {
                    unexpected.add(e);
                }
            }
        }

        void takeTheLock(SluiceRuntime runtime) {
            while (!stop.get()) {
                try (LockHandle handle = runtime.locks().lock("failover-job")
                        .acquire(Duration.ofSeconds(2), Duration.ofMillis(300))) {
                    if (occupants.incrementAndGet() > 1) {
                        overlaps.incrementAndGet();
                    }
                    // Deliberately not atomic: a second holder inside would lose an update.
                    long seen = counter.get();
                    if (handle.fencingToken() <= lastToken.get()) {
                        tokenRegressions.incrementAndGet();
                    }
                    lastToken.set(handle.fencingToken());
                    Thread.yield();
                    counter.set(seen + 1);
                    occupants.decrementAndGet();
                    locked.incrementAndGet();
                    succeeded(lastLock, longestLockGap);
                } catch (LockNotAcquiredException e) {
                    if (e.getCause() != null) {
                        lockFailedClosed.incrementAndGet();
                        pace();
                    } else {
                        lockTimedOut.incrementAndGet();
                    }
                } catch (LockLostException e) {
                    lockLost.incrementAndGet();
                } catch (RuntimeException e) {
                    unexpected.add(e);
                }
            }
        }

        /** Callers that fail at once would otherwise spin and starve the sentinels of the two CPUs. */
        private static void pace() {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }

        private static void succeeded(AtomicLong last, AtomicReference<long[]> longest) {
            long now = System.nanoTime();
            long[] gap = {now - last.getAndSet(now), now};
            longest.accumulateAndGet(gap, (a, b) -> a[0] >= b[0] ? a : b);
        }
    }

    private RedisProcess start(RedisProcess process) {
        processes.add(process);
        return process;
    }

    private static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }

    private static <T> T onNode(RedisProcess node, Function<Jedis, T> action) {
        try (Jedis jedis = new Jedis(new HostAndPort(node.host(), node.port()),
                DefaultJedisClientConfig.builder().timeoutMillis(5000).build())) {
            return action.apply(jedis);
        }
    }

    private static String info(RedisProcess node, String section) {
        return onNode(node, j -> j.info(section));
    }

    private static Map<String, String> sentinelMaster(RedisProcess sentinel) {
        return onNode(sentinel, j -> new HashMap<>(j.sentinelMaster(MASTER_NAME)));
    }

    private static int currentMaster(RedisProcess sentinel) {
        return onNode(sentinel, j -> Integer.parseInt(j.sentinelGetMasterAddrByName(MASTER_NAME).get(1)));
    }
}
