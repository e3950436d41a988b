package dev.sluice.bench;

import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.limit.Admission;
import dev.sluice.internal.limit.RateLimitEngine;
import dev.sluice.internal.runtime.SluiceRuntime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * How far local budgets let a key go beyond its limit: {@value #NODES} nodes (separate runtimes in this JVM, each with
 * its own connection pool, on the run's Redis), {@value #THREADS_PER_NODE} threads each, sending requests of one
 * {@code global} key ({@value #RATE}/s, burst {@value #BURST}) paced to twice the limit in all, for the plan's time; once
 * with {@code local-budget=}{@value #AGE} and once without.
 *
 * <p>Each admission is stamped with the instants its decision began and ended. A window's limit is what the bucket
 * admits without a budget: its capacity plus the tokens the rate grants in the window, rounded up (one token for
 * Redis's clock, which is not the JVM's). For window lengths from 1 ms to the whole run, each starting at an
 * admission, the admissions wholly inside it are counted; the worst excess over the limit is reported beside the
 * stated bound, {@code nodes × B} with a budget, 0 without. Over the whole run, the admissions are compared with the
 * limit of the run's length.
 */
final class OverAdmission {

    static final int NODES = 4;
    static final int THREADS_PER_NODE = 4;
    static final long RATE = 2000;
    static final long BURST = 200;
    static final String AGE = "50ms";

    /**
     * One run.
     *
     * @param localBudget       the policy's {@code local-budget}
     * @param admitted          requests admitted over the run
     * @param refused           requests refused
     * @param limit             what the bucket admits over the run's length without a budget
     * @param bound             the stated bound beyond the limit in any window: {@code nodes × B}, 0 without a budget
     * @param worstBeyond       the most admissions of one window beyond its limit
     * @param worstWindowMillis that window's length
     * @param redisCalls        scripts Redis ran over the run ({@code INFO commandstats})
     * @param seconds           the run's length
     */
    record Run(String localBudget, long admitted, long refused, long limit, long bound, long worstBeyond,
               double worstWindowMillis, long redisCalls, double seconds) {

        /** Admitted over the limit of the whole run. */
        double admittedOverLimit() {
            return admitted / (double) limit;
        }
    }

    private final PrivateRedis redis;

    OverAdmission(PrivateRedis redis) {
        this.redis = redis;
    }

    Run run(String localBudget, Duration length) throws Exception {
        redis.flush();
        Map<String, String> settings = new HashMap<>();
        settings.put("sluice.redis.uri", redis.uri());
        settings.put("sluice.redis.pool.max-total", "8");
        settings.put("sluice.limit.global.rate", RATE + "/1s");
        settings.put("sluice.limit.global.burst", Long.toString(BURST));
        settings.put("sluice.limit.global.key", "global");
        settings.put("sluice.limit.global.local-budget", localBudget);
        SluiceConfig config = SluiceConfigLoader.load(ConfigSources.of(settings));
        PolicyConfig global = config.policy("global").orElseThrow();
        int threads = NODES * THREADS_PER_NODE;
        List<SluiceRuntime> nodes = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (var jedis = redis.connect()) {
            for (int n = 0; n < NODES; n++) {
                nodes.add(SluiceRuntime.start(config));
            }
            long scriptsBefore = CpuMeter.scriptCalls(jedis);
            CyclicBarrier start = new CyclicBarrier(threads);
            long gap = TimeUnit.SECONDS.toNanos(1) * threads / (2 * RATE);
            long lengthNanos = length.toNanos();
            List<Future<long[][]>> workers = new ArrayList<>();
            for (SluiceRuntime node : nodes) {
                RateLimitEngine engine = node.rateLimits();
                for (int t = 0; t < THREADS_PER_NODE; t++) {
                    workers.add(pool.submit(() -> {
                        start.await();
                        long began = System.nanoTime();
                        long next = began;
                        long refused = 0;
                        long[] starts = new long[(int) (lengthNanos / gap) + 16];
                        long[] ends = new long[starts.length];
                        int n = 0;
                        while (next - (began + lengthNanos) < 0) {
                            long wait = next - System.nanoTime();
                            if (wait > 0) {
                                LockSupport.parkNanos(wait); // pacing the load
                            }
                            long s = System.nanoTime();
                            boolean admitted = engine.admit(List.of(RateLimitEngine.LimitCall.beforeRequest(global,
                                    "all"))).outcome() == Admission.Outcome.ADMITTED;
                            long e = System.nanoTime();
                            if (admitted && n < starts.length) {
                                starts[n] = s;
                                ends[n++] = e;
                            } else if (!admitted) {
                                refused++;
                            }
                            next += gap;
                        }
                        return new long[][] {Arrays.copyOf(starts, n), Arrays.copyOf(ends, n), {refused}};
                    }));
                }
            }
            List<long[]> stamps = new ArrayList<>();
            long refused = 0;
            for (Future<long[][]> worker : workers) {
                long[][] r = worker.get(length.toSeconds() + 60, TimeUnit.SECONDS);
                for (int i = 0; i < r[0].length; i++) {
                    stamps.add(new long[] {r[0][i], r[1][i]});
                }
                refused += r[2][0];
            }
            long redisCalls = CpuMeter.scriptCalls(jedis) - scriptsBefore;
            stamps.sort((a, b) -> Long.compare(a[0], b[0]));
            long first = stamps.get(0)[0];
            long last = stamps.stream().mapToLong(a -> a[1]).max().orElseThrow();
            long[] worst = worst(stamps, last - first);
            return new Run(localBudget, stamps.size(), refused, limitOf(last - first),
                    NODES * global.localBudgetTokens(), worst[0], worst[1] / 1e6, redisCalls, (last - first) / 1e9);
        } finally {
            pool.shutdownNow();
            nodes.forEach(SluiceRuntime::close);
        }
    }

    /** What the bucket admits in a window of {@code nanos}: its capacity and the rate's tokens, rounded up. */
    static long limitOf(long nanos) {
        return BURST + -Math.floorDiv(-RATE * nanos, TimeUnit.SECONDS.toNanos(1));
    }

    /**
     * The worst excess over the limit, and its window's length: for each length from 1 ms, ×2 up to the run, and for
     * each admission's start, the admissions that began at or after it and ended within the length (a Fenwick tree
     * over the ends, the starts taken from the last).
     */
    static long[] worst(List<long[]> byStart, long run) {
        int n = byStart.size();
        long[] ends = byStart.stream().mapToLong(a -> a[1]).sorted().toArray();
        long worst = Long.MIN_VALUE;
        long worstLength = 0;
        List<Long> lengths = new ArrayList<>();
        for (long length = TimeUnit.MILLISECONDS.toNanos(1); length < run; length *= 2) {
            lengths.add(length);
        }
        lengths.add(run);
        for (long length : lengths) {
            int[] tree = new int[n + 1];
            long limit = limitOf(length);
            for (int i = n - 1; i >= 0; i--) {
                long[] a = byStart.get(i);
                for (int k = Arrays.binarySearch(ends, a[1]) + 1; k <= n; k += k & -k) {
                    tree[k]++;
                }
                int upTo = upperBound(ends, a[0] + length);
                long inside = 0;
                for (int k = upTo; k > 0; k -= k & -k) {
                    inside += tree[k];
                }
                if (inside - limit > worst) {
                    worst = inside - limit;
                    worstLength = length;
                }
            }
        }
        return new long[] {worst, worstLength};
    }

    /** How many of the sorted {@code values} are at most {@code v}. */
    private static int upperBound(long[] values, long v) {
        int lo = 0;
        int hi = values.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (values[mid] <= v) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
