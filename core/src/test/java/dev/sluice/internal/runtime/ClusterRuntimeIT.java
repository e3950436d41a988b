package dev.sluice.internal.runtime;

import dev.sluice.LockHandle;
import dev.sluice.Permit;
import dev.sluice.RateLimitDecision;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.limit.RateLimitEngine;
import dev.sluice.test.RedisCluster;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A whole runtime (rate limits, locks, semaphores) on a real three-master Redis Cluster, as an application
 * configured with {@code sluice.redis.cluster-nodes} gets it: many keys under concurrency land on every master, and
 * a policy with several bandwidths is charged all-or-nothing even when many threads race on one key.
 */
class ClusterRuntimeIT {

    @RegisterExtension
    static final RedisCluster CLUSTER = RedisCluster.threeMasters();

    private SluiceRuntime runtime;

    @BeforeEach
    void start() {
        SluiceConfig config = SluiceConfigLoader.load(ConfigSources.of(Map.of(
                "sluice.redis.cluster-nodes", String.join(",", CLUSTER.nodes()),
                "sluice.limit.spread.rate", "5/1h",
                "sluice.limit.tight.rate", "1000/1h,30/1d")));
        runtime = SluiceRuntime.start(config);
    }

    @AfterEach
    void stop() {
        runtime.close();
    }

    @Test
    void manyRateLimitLockAndSemaphoreKeysUnderConcurrencyLandOnEveryMaster() throws Exception {
        PolicyConfig spread = runtime.config().policy("spread").orElseThrow();
        int threads = 16;
        int keysPerThread = 150;
        AtomicInteger refused = new AtomicInteger();
        runConcurrently(threads, t -> {
            for (int i = 0; i < keysPerThread; i++) {
                String key = "client-" + t + "-" + i;
                if (!runtime.rateLimits().decide(spread, key, 1).allowed()) {
                    refused.incrementAndGet();
                }
                if (i % 10 == 0) {
                    try (LockHandle lock = runtime.locks().lock("order:" + key).acquire(Duration.ofSeconds(30),
                            Duration.ofSeconds(5))) {
                        assertThat(lock.isHeld()).isTrue();
                    }
                    try (Permit permit = runtime.locks().semaphore("render:" + key, 2).acquire(Duration.ofSeconds(30),
                            Duration.ofSeconds(5))) {
                        assertThat(permit.isHeld()).isTrue();
                    }
                }
            }
        });

        assertThat(refused).as("every key is a fresh bucket").hasValue(0);
        for (int node = 0; node < 3; node++) {
            assertThat(keysOnNode(node, "sluice:rl:*")).as("rate-limit buckets on node %d", node).isPositive();
            assertThat(keysOnNode(node, "sluice:lock:*:fence")).as("fencing counters on node %d", node).isPositive();
        }
        long buckets = 0;
        for (int node = 0; node < 3; node++) {
            buckets += keysOnNode(node, "sluice:rl:*");
        }
        assertThat(buckets).isEqualTo((long) threads * keysPerThread);
    }

    @Test
    void aPolicyWithTwoBandwidthsIsChargedAllOrNothingWhileSixteenThreadsRaceOnOneKey() throws Exception {
        PolicyConfig tight = runtime.config().policy("tight").orElseThrow();
        AtomicInteger admitted = new AtomicInteger();
        runConcurrently(16, t -> {
            for (int i = 0; i < 20; i++) {
                if (runtime.rateLimits().decide(tight, "hot-client", 1).allowed()) {
                    admitted.incrementAndGet();
                }
            }
        });

        assertThat(admitted).as("the daily bandwidth of 30 decides").hasValue(30);
        // The hourly bucket is the same key as the first bandwidth of a one-bandwidth policy of the same name: had
        // a denied request charged it, fewer than 1000 - 30 tokens would be left.
        PolicyConfig hourlyOnly = SluiceConfigLoader.load(ConfigSources.of(Map.of(
                "sluice.limit.tight.rate", "1000/1h"))).policy("tight").orElseThrow();
        RateLimitDecision probe = runtime.rateLimits().decide(hourlyOnly, "hot-client", 1);
        assertThat(probe.remaining()).isEqualTo(1000 - 30 - 1);
        RateLimitEngine engine = runtime.rateLimits();
        assertThat(CLUSTER.nodeOwning(engine.bucketKey("tight", "hot-client")))
                .as("both bandwidths' buckets share the slot of the braces")
                .isEqualTo(CLUSTER.nodeOwning(engine.bucketKey("tight", "hot-client") + ":1"));
    }

    private long keysOnNode(int node, String pattern) {
        return CLUSTER.onNode(node, jedis -> {
            long count = 0;
            String cursor = ScanParams.SCAN_POINTER_START;
            do {
                ScanResult<String> page = jedis.scan(cursor, new ScanParams().match(pattern).count(1000));
                count += page.getResult().size();
                cursor = page.getCursor();
            } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
            return count;
        });
    }

    private interface Work {
        void run(int thread) throws Exception;
    }

    private static void runConcurrently(int threads, Work work) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CyclicBarrier start = new CyclicBarrier(threads);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    start.await();
                    work.run(thread);
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
