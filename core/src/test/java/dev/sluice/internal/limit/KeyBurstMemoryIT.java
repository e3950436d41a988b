package dev.sluice.internal.limit;

import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.runtime.SluiceRuntime;
import dev.sluice.test.RedisServer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

import java.nio.charset.StandardCharsets;
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
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * 100,000 distinct clients in a burst (a scan, a botnet, a spoofed header): every bucket is a small key with a TTL,
 * so Redis memory returns to its baseline (within 10 %) once the longest TTL has passed, and no key is longer than
 * 200 bytes, even with the longest key prefix and policy name the configuration accepts and hostile key values.
 * The policy's window is short ({@code 1/3s}: a bucket lives 3 s) so that the test is quick; Redis is polled
 * ({@code DBSIZE}, {@code INFO memory}), never waited on blindly. The soak profile raises the client count with
 * {@code sluice.soak.clients}.
 */
class KeyBurstMemoryIT {

    private static final int CLIENTS = Integer.getInteger("sluice.soak.clients", 100_000);
    private static final int THREADS = 32;
    private static final String PREFIX = "p".repeat(32);
    private static final String POLICY = "n".repeat(64);
    private static final Duration LONGEST_TTL = Duration.ofSeconds(3);

    @RegisterExtension
    static final RedisServer REDIS = RedisServer.standalone();

    private SluiceRuntime runtime;

    @AfterEach
    void stop() {
        if (runtime != null) {
            runtime.close();
        }
    }

    @Test
    void memoryReturnsToItsBaselineAfterTheLongestTtlAndNoKeyExceedsTwoHundredBytes() throws Exception {
        SluiceConfig config = SluiceConfigLoader.load(ConfigSources.of(Map.of(
                "sluice.redis.uri", REDIS.uri(),
                "sluice.key-prefix", PREFIX,
                "sluice.limit." + POLICY + ".rate", "1/3s")));
        runtime = SluiceRuntime.start(config);
        PolicyConfig policy = config.policy(POLICY).orElseThrow();

        // Baseline with the pool's connections open and the script loaded, and no bucket left.
        burst(policy, "warm-up-", THREADS * 10);
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> REDIS.admin().dbSize() == 0);
        long baseline = usedMemory();

        long started = System.nanoTime();
        AtomicLong peak = new AtomicLong(baseline);
        int admitted = burst(policy, "", CLIENTS, () -> peak.accumulateAndGet(usedMemory(), Math::max));
        long burstMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        long lastWrite = System.nanoTime();
        assertThat(admitted).as("every client is new").isEqualTo(CLIENTS);

        long[] longest = {0};
        long scanned = scan(key -> longest[0] = Math.max(longest[0], key.getBytes(StandardCharsets.UTF_8).length));
        assertThat(scanned).as("buckets alive right after the burst").isPositive();
        assertThat(longest[0]).as("longest key in bytes").isLessThanOrEqualTo(200);

        await().atMost(LONGEST_TTL.plusSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> REDIS.admin().dbSize() == 0);
        long emptyAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastWrite);
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> usedMemory() <= baseline * 1.10);
        long backAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastWrite);
        long end = usedMemory();

        System.out.printf("%d distinct clients in %d ms (%d/s): used_memory baseline %d B, peak %d B (+%d B, %d B per "
                        + "bucket), after expiry %d B (%+.1f %%); longest key %d B of %d scanned; every bucket gone %d ms "
                        + "and memory back %d ms after the last write (TTL %d ms)%n",
                CLIENTS, burstMillis, CLIENTS * 1000L / Math.max(1, burstMillis), baseline, peak.get(),
                peak.get() - baseline, (peak.get() - baseline) / CLIENTS, end, 100.0 * (end - baseline) / baseline,
                longest[0], scanned, emptyAfter, backAfter, LONGEST_TTL.toMillis());
        assertThat(end).isLessThanOrEqualTo((long) (baseline * 1.10));
    }

    private int burst(PolicyConfig policy, String tag, int clients) throws Exception {
        return burst(policy, tag, clients, () -> { });
    }

    /** {@code clients} distinct keys decided by {@link #THREADS} threads; half IPv4 addresses, half hostile text. */
    private int burst(PolicyConfig policy, String tag, int clients, Runnable sample) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        AtomicInteger next = new AtomicInteger();
        AtomicInteger admitted = new AtomicInteger();
        CyclicBarrier start = new CyclicBarrier(THREADS);
        String hostile = "{x}\r\n\u0000" + "z".repeat(1000);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = next.getAndIncrement(); i < clients; i = next.getAndIncrement()) {
                        String raw = i % 2 == 0
                                ? tag + "10." + (i >> 16 & 0xFF) + "." + (i >> 8 & 0xFF) + "." + (i & 0xFF)
                                : tag + hostile + i;
                        if (runtime.rateLimits().decide(policy, raw, 1).allowed()) {
                            admitted.incrementAndGet();
                        }
                        if (i % 5_000 == 0) {
                            sample.run();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(5, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        return admitted.get();
    }

    private long usedMemory() {
        for (String line : REDIS.admin().info("memory").split("\r?\n")) {
            if (line.startsWith("used_memory:")) {
                return Long.parseLong(line.substring("used_memory:".length()).trim());
            }
        }
        throw new IllegalStateException("no used_memory in INFO memory");
    }

    private interface KeyVisitor {
        void visit(String key);
    }

    private long scan(KeyVisitor visitor) {
        long count = 0;
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            ScanResult<String> page = REDIS.admin().scan(cursor, new ScanParams().count(1000));
            for (String key : page.getResult()) {
                visitor.visit(key);
                count++;
            }
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        return count;
    }
}
