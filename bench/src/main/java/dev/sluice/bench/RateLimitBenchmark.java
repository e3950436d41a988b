package dev.sluice.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Rate-limit decisions, the same loop for every library: pick a key (always the same one, or one of
 * {@link BenchEnv#DISTINCT_KEYS} uniformly at random), decide, repeat. The limit is never reached, so a
 * denial means the setup is wrong and fails the run instead of flattering anyone.
 *
 * <p>Thread count and iterations are set by {@link BenchMain}; JMH measures throughput and {@link Latency}
 * the percentiles.
 */
@State(Scope.Benchmark)
public class RateLimitBenchmark {

    @Param({Libraries.SLUICE, Libraries.BUCKET4J, Libraries.REDISSON, Libraries.RAW_EVALSHA, Libraries.SLUICE_BUDGET})
    public String library;

    /** {@code hot}: one key for every thread; {@code distinct}: 100,000 keys chosen at random. */
    @Param({"hot", "distinct"})
    public String keys;

    RateLimitClient client;
    int keyCount;

    @Setup(Level.Trial)
    public void open() {
        keyCount = keys.equals("hot") ? 1 : BenchEnv.DISTINCT_KEYS;
        client = RateLimitClient.open(library, BenchEnv.redisUri(), BenchEnv.keyNames(keyCount));
    }

    @TearDown(Level.Trial)
    public void close() {
        client.close();
    }

    /** Each thread's own key sequence. */
    @State(Scope.Thread)
    public static class Cursor {
        private static final AtomicLong SEEDS = new AtomicLong(42);
        final SplittableRandom random = new SplittableRandom(SEEDS.getAndIncrement());

        int next(int bound) {
            return bound == 1 ? 0 : random.nextInt(bound);
        }
    }

    @Benchmark
    public boolean decide(Cursor cursor, Latency latency, CpuMeter cpu) {
        int key = cursor.next(keyCount);
        long start = System.nanoTime();
        boolean admitted = client.tryAcquire(key);
        latency.since(start);
        if (!admitted) {
            throw new IllegalStateException(library + " denied a request although the limit is never reached");
        }
        return admitted;
    }
}
