package dev.sluice.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Lock acquire+release, the same loop for every library: with a key per thread nobody waits (the cost of
 * the lock protocol alone); on one key every thread contends and the throughput is the rate of hand-offs.
 */
@State(Scope.Benchmark)
public class LockBenchmark {

    @Param({Libraries.SLUICE, Libraries.REDISSON, Libraries.LOCK_FLOOR})
    public String library;

    /** {@code per-thread}: each thread its own key; {@code one}: every thread on the same key. */
    @Param({"per-thread", "one"})
    public String keys;

    LockClient client;

    @Setup(Level.Trial)
    public void open() {
        client = LockClient.open(library, BenchEnv.redisUri());
    }

    @TearDown(Level.Trial)
    public void close() {
        client.close();
    }

    /** The key this thread locks. */
    @State(Scope.Thread)
    public static class Key {
        private static final AtomicInteger THREADS = new AtomicInteger();
        String name;

        @Setup(Level.Trial)
        public void pick(LockBenchmark benchmark) {
            name = benchmark.keys.equals("one") ? "bench" : "bench-" + THREADS.getAndIncrement();
        }
    }

    @Benchmark
    public void lockUnlock(Key key, Latency latency, CpuMeter cpu) {
        long start = System.nanoTime();
        client.lockUnlock(key.name);
        latency.since(start);
    }
}
