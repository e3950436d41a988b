package dev.sluice.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Semaphore acquire+release on one semaphore, the same loop for every library: with more permits than
 * threads nobody waits; with fewer, threads queue for permits.
 */
@State(Scope.Benchmark)
public class SemaphoreBenchmark {

    @Param({Libraries.SLUICE, Libraries.REDISSON})
    public String library;

    @Param({"64", "4"})
    public int permits;

    SemaphoreClient client;

    @Setup(Level.Trial)
    public void open() {
        client = SemaphoreClient.open(library, BenchEnv.redisUri(), permits);
    }

    @TearDown(Level.Trial)
    public void close() {
        client.close();
    }

    @Benchmark
    public void acquireRelease(Latency latency, CpuMeter cpu) {
        long start = System.nanoTime();
        client.acquireRelease();
        latency.since(start);
    }
}
