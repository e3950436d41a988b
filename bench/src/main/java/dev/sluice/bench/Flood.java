package dev.sluice.bench;

import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.limit.RateLimitEngine;
import dev.sluice.internal.metrics.PolicyMetrics;
import dev.sluice.internal.runtime.SluiceRuntime;
import org.HdrHistogram.Histogram;
import redis.clients.jedis.Jedis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.LongAdder;

/**
 * One client flooding a key it is refused on while other clients are served, on one node (one
 * {@link SluiceRuntime}, decisions through its engine as a filter makes them).
 *
 * <p>{@value #SERVED_THREADS} threads decide for their own keys under a limit never reached (policy
 * {@code bench}, as in the rate-limit rows); one more thread, the flooder, decides as fast as it can for one
 * key of policy {@code flood} ({@value #FLOOD_RATE}), whose single token was spent before the run. Each round
 * measures, back to back in rotated order: the served threads alone; with the flood and the deny cache on
 * ({@code sluice.deny-cache.size} at its default); with the flood and the cache off ({@code 0}). Per variant:
 * the served threads' p99 and decisions/s over the measured time, and the Redis calls the flooded key cost over
 * the whole variant, from its first refusal (the call that starts the denial window) to the end: every {@code EVALSHA}/{@code EVAL} Redis counted
 * ({@code INFO commandstats}) less the served threads' decisions, one call each; the engine's own count
 * ({@code Denied - DeniedLocally} of policy {@code flood}) is printed beside it as a check.
 */
final class Flood {

    static final int SERVED_THREADS = 8;
    static final String FLOOD_RATE = "1/1h";
    static final Duration DENIAL_WINDOW = Duration.ofHours(1);
    /**
     * How long a node answers the flooder from its deny cache before asking Redis again: the denial window, but
     * no longer than an entry's life.
     */
    static final Duration CACHED_WINDOW = Duration.ofMillis(Math.min(DENIAL_WINDOW.toMillis(),
            dev.sluice.internal.limit.DenyCache.MAX_TRUST_MILLIS));

    enum Variant {
        QUIET("no flood"), FLOOD("flood, deny cache on"), FLOOD_NO_CACHE("flood, deny cache off (size 0)");

        final String label;

        Variant(String label) {
            this.label = label;
        }
    }

    /**
     * One variant in one round.
     *
     * @param servedPerSecond  the served threads' decisions per second over the measured time
     * @param floodPerSecond   the flooder's decisions per second (0 without a flood)
     * @param floodRedisCalls  Redis calls for the flooded key over the variant ({@code INFO commandstats})
     * @param floodRedisCallsByEngine the same by the engine's counters
     * @param seconds          how long the flooder ran (warm-up and measured time)
     */
    record Run(Variant variant, int round, double servedPerSecond, long servedP50Nanos, long servedP99Nanos,
               double floodPerSecond, long floodRedisCalls, long floodRedisCallsByEngine, double seconds) {
    }

    private final PrivateRedis redis;

    Flood(PrivateRedis redis) {
        this.redis = redis;
    }

    Run run(Variant variant, int round, Duration warmup, Duration measured) throws Exception {
        redis.flush();
        Map<String, String> settings = new HashMap<>(SluiceRateLimitClient.settings(redis.uri(),
                BenchEnv.RATE_TOKENS, BenchEnv.RATE_PERIOD));
        settings.put("sluice.limit.flood.rate", FLOOD_RATE);
        settings.put("sluice.limit.flood.key", "header:X-Client");
        if (variant == Variant.FLOOD_NO_CACHE) {
            settings.put(SluiceConfigLoader.DENY_CACHE_SIZE, "0");
        }
        SluiceConfig config = SluiceConfigLoader.load(ConfigSources.of(settings));
        try (SluiceRuntime runtime = SluiceRuntime.start(config); Jedis jedis = redis.connect()) {
            RateLimitEngine engine = runtime.rateLimits();
            PolicyConfig served = config.policy(SluiceRateLimitClient.POLICY).orElseThrow();
            PolicyConfig flood = config.policy("flood").orElseThrow();
            String flooder = "flooder";
            if (!engine.decide(flood, flooder, 1).allowed()) {
                throw new IllegalStateException("the flooded key should admit its one token");
            }
            // Counted from the first refusal on: the Redis call that starts the denial window is one of the calls.
            PolicyMetrics floodMetrics = runtime.metrics().policy("flood");
            long engineCallsBefore = floodMetrics.allowedCount() + floodMetrics.deniedCount() - floodMetrics.deniedLocallyCount();
            long scriptCallsBefore = scriptCalls(jedis);
            if (variant != Variant.QUIET && engine.decide(flood, flooder, 1).allowed()) {
                throw new IllegalStateException("the flooded key admitted a second request");
            }

            LongAdder servedDecisions = new LongAdder();
            LongAdder measuredServed = new LongAdder();
            LongAdder floodDecisions = new LongAdder();
            LongAdder measuredFlood = new LongAdder();
            Histogram[] histograms = new Histogram[SERVED_THREADS];
            Phase phase = new Phase();
            ExecutorService pool = Executors.newFixedThreadPool(SERVED_THREADS + 1);
            List<Future<?>> threads = new ArrayList<>();
            for (int t = 0; t < SERVED_THREADS; t++) {
                Histogram histogram = new Histogram(3_600_000_000_000L, 3);
                histograms[t] = histogram;
                String key = "user-" + t;
                threads.add(pool.submit(() -> {
                    while (!phase.stopped) {
                        long start = System.nanoTime();
                        if (!engine.decide(served, key, 1).allowed()) {
                            throw new IllegalStateException("a served client was refused");
                        }
                        long took = System.nanoTime() - start;
                        servedDecisions.increment();
                        if (phase.measuring) {
                            histogram.recordValue(took);
                            measuredServed.increment();
                        }
                    }
                }));
            }
            if (variant != Variant.QUIET) {
                threads.add(pool.submit(() -> {
                    while (!phase.stopped) {
                        if (engine.decide(flood, flooder, 1).allowed()) {
                            throw new IllegalStateException("the flooded key admitted a request");
                        }
                        floodDecisions.increment();
                        if (phase.measuring) {
                            measuredFlood.increment();
                        }
                    }
                }));
            }
            long started = System.nanoTime();
            Thread.sleep(warmup.toMillis()); // the run's length, not a synchronisation
            phase.measuring = true;
            long measuredStart = System.nanoTime();
            Thread.sleep(measured.toMillis());
            phase.measuring = false;
            double measuredSeconds = (System.nanoTime() - measuredStart) / 1e9;
            phase.stopped = true;
            try {
                for (Future<?> thread : threads) {
                    thread.get();
                }
            } finally {
                pool.shutdownNow();
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            long scriptCalls = scriptCalls(jedis) - scriptCallsBefore;
            long engineCalls = floodMetrics.allowedCount() + floodMetrics.deniedCount() - floodMetrics.deniedLocallyCount()
                    - engineCallsBefore;
            Histogram all = new Histogram(3_600_000_000_000L, 3);
            for (Histogram h : histograms) {
                all.add(h);
            }
            return new Run(variant, round, measuredServed.sum() / measuredSeconds, all.getValueAtPercentile(50),
                    all.getValueAtPercentile(99), measuredFlood.sum() / measuredSeconds,
                    scriptCalls - servedDecisions.sum(), engineCalls, variant == Variant.QUIET ? 0 : seconds);
        }
    }

    private static long scriptCalls(Jedis jedis) {
        return CpuMeter.scriptCalls(jedis);
    }

    /** Written by the runner thread, read by the workers. */
    private static final class Phase {
        volatile boolean measuring;
        volatile boolean stopped;
    }
}
