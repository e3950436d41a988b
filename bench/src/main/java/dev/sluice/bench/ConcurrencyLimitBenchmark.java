package dev.sluice.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Concurrency-limit decisions of one client, the same loop for every library: decide a request without
 * waiting; when admitted, return its permit at once (a request that does no work), then repeat. One operation
 * is one decision, admitted or refused: a refusal is a complete answer (the 429), made in one Redis call,
 * an admission costs two (take, return). With more permits than threads nothing is refused, and a refusal
 * fails the run; with fewer, {@link Admissions} records what share was admitted.
 */
@State(Scope.Benchmark)
public class ConcurrencyLimitBenchmark {

    @Param({Libraries.SLUICE, Libraries.REDISSON})
    public String library;

    @Param({"64", "4"})
    public int permits;

    ConcurrencyLimitClient client;
    boolean refusalsExpected;

    @Setup(Level.Trial)
    public void open(org.openjdk.jmh.infra.BenchmarkParams params) {
        client = ConcurrencyLimitClient.open(library, BenchEnv.redisUri(), permits);
        refusalsExpected = permits < params.getThreads();
    }

    @TearDown(Level.Trial)
    public void close() {
        client.close();
    }

    @Benchmark
    public boolean decide(Latency latency, CpuMeter cpu, Admissions admissions) {
        long start = System.nanoTime();
        boolean admitted = client.request();
        latency.since(start);
        if (!admitted && !refusalsExpected) {
            throw new IllegalStateException(library + " refused a request although no more requests than permits are in flight");
        }
        admissions.record(admitted);
        return admitted;
    }
}
