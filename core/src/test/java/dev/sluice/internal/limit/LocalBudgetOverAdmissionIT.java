package dev.sluice.internal.limit;

import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.runtime.SluiceRuntime;
import dev.sluice.test.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One global key limited on four nodes (four runtimes, each with its own connection pool, on one real Redis): first at
 * half the limit, so that every node holds a batch while the bucket stays nearly full, then at twice the limit. In no
 * window do the nodes admit more than the bucket would alone plus what four nodes may hold ({@code 4 ×}
 * {@link PolicyConfig#localBudgetTokens()}); without a local budget, nothing beyond it.
 *
 * <p>Counts, no timing threshold: each admission is stamped with the instants its decision began and ended, and a
 * window counts the admissions wholly inside it, whose tokens Redis took (or the node spent) inside it. The limit of a
 * window of {@code W} is the bucket's capacity plus the tokens its rate grants in {@code W}, rounded up (one token of
 * slack for Redis's clock, which is not the JVM's).
 */
class LocalBudgetOverAdmissionIT {

    @RegisterExtension
    static final RedisServer REDIS = RedisServer.standalone();

    private static final int NODES = 4;
    private static final int THREADS_PER_NODE = 2;
    private static final long RATE = 400;
    private static final long BURST = 40;
    /** 50 ms of 400/s: a node holds at most 20 tokens. */
    private static final String AGE = "50ms";
    private static final long QUIET_MILLIS = 1_000;
    private static final long BUSY_MILLIS = 3_000;

    /** An admitted decision: when it began and ended (nanoTime). */
    private record Stamp(long start, long end) {
    }

    private record Run(List<Stamp> admitted, long refused, long bound, long worstBeyondTheLimit) {
    }

    @Test
    void withLocalBudgetsNoWindowAdmitsMoreThanTheLimitAndWhatTheNodesHold() throws Exception {
        Run run = run(AGE);
        assertThat(run.bound()).isEqualTo(NODES * 20);
        assertThat(run.refused()).as("twice the limit: many refused").isPositive();
        assertThat(run.worstBeyondTheLimit()).as("tokens beyond the limit in the worst window").isLessThanOrEqualTo(run.bound());
    }

    @Test
    void withoutALocalBudgetNoWindowAdmitsMoreThanTheLimit() throws Exception {
        Run run = run("0");
        assertThat(run.bound()).isZero();
        assertThat(run.refused()).isPositive();
        assertThat(run.worstBeyondTheLimit()).isLessThanOrEqualTo(0);
    }

    private Run run(String localBudget) throws Exception {
        Map<String, String> settings = new HashMap<>();
        settings.put("sluice.redis.uri", REDIS.uri());
        settings.put("sluice.redis.pool.max-total", "4");
        settings.put("sluice.limit.global.rate", RATE + "/1s");
        settings.put("sluice.limit.global.burst", Long.toString(BURST));
        settings.put("sluice.limit.global.key", "global");
        settings.put("sluice.limit.global.local-budget", localBudget);
        SluiceConfig config = SluiceConfigLoader.load(ConfigSources.of(settings));
        PolicyConfig global = config.policy("global").orElseThrow();
        List<SluiceRuntime> nodes = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(NODES * THREADS_PER_NODE);
        try {
            for (int n = 0; n < NODES; n++) {
                nodes.add(SluiceRuntime.start(config));
            }
            ConcurrentLinkedQueue<Stamp> admitted = new ConcurrentLinkedQueue<>();
            AtomicLong refused = new AtomicLong();
            CyclicBarrier start = new CyclicBarrier(NODES * THREADS_PER_NODE);
            int threads = NODES * THREADS_PER_NODE;
            // per thread: half the limit's share while quiet, twice it while busy
            long quietGap = TimeUnit.SECONDS.toNanos(1) * threads * 2 / RATE;
            long busyGap = TimeUnit.SECONDS.toNanos(1) * threads / (2 * RATE);
            List<Future<?>> workers = new ArrayList<>();
            for (SluiceRuntime node : nodes) {
                RateLimitEngine engine = node.rateLimits();
                for (int t = 0; t < THREADS_PER_NODE; t++) {
                    workers.add(pool.submit(() -> {
                        start.await();
                        long began = System.nanoTime();
                        long quietUntil = began + TimeUnit.MILLISECONDS.toNanos(QUIET_MILLIS);
                        long end = quietUntil + TimeUnit.MILLISECONDS.toNanos(BUSY_MILLIS);
                        long next = began;
                        while (next - end < 0) {
                            long wait = next - System.nanoTime();
                            if (wait > 0) {
                                LockSupport.parkNanos(wait); // pacing the load, not waiting for anything
                            }
                            long s = System.nanoTime();
                            boolean allowed = engine.admit(List.of(RateLimitEngine.LimitCall.beforeRequest(global, "all")))
                                    .outcome() == Admission.Outcome.ADMITTED;
                            long e = System.nanoTime();
                            if (allowed) {
                                admitted.add(new Stamp(s, e));
                            } else {
                                refused.incrementAndGet();
                            }
                            next += next - quietUntil < 0 ? quietGap : busyGap;
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> worker : workers) {
                worker.get(1, TimeUnit.MINUTES);
            }
            List<Stamp> all = new ArrayList<>(admitted);
            Run run = new Run(all, refused.get(), NODES * global.localBudgetTokens(), worstBeyondTheLimit(all));
            System.out.printf("local-budget=%s: %d admitted, %d refused; worst window %d beyond the limit, bound %d%n",
                    localBudget, all.size(), run.refused(), run.worstBeyondTheLimit(), run.bound());
            return run;
        } finally {
            pool.shutdownNow();
            nodes.forEach(SluiceRuntime::close);
        }
    }

    /**
     * The most admissions of any window beyond its limit: for each admission's start as the window's start, the
     * admissions that began after it, by the end of each as the window's end.
     */
    private static long worstBeyondTheLimit(List<Stamp> admitted) {
        List<Stamp> byEnd = new ArrayList<>(admitted);
        byEnd.sort(Comparator.comparingLong(Stamp::end));
        long worst = Long.MIN_VALUE;
        for (Stamp first : admitted) {
            long from = first.start();
            long inside = 0;
            for (Stamp a : byEnd) {
                if (a.end() - from < 0 || a.start() - from < 0) {
                    continue;
                }
                inside++;
                long window = a.end() - from;
                long limit = BURST + ceilDiv(RATE * window, TimeUnit.SECONDS.toNanos(1));
                worst = Math.max(worst, inside - limit);
            }
        }
        return worst;
    }

    private static long ceilDiv(long a, long b) {
        return -Math.floorDiv(-a, b);
    }
}
