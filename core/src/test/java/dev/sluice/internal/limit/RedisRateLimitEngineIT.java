package dev.sluice.internal.limit;

import dev.sluice.RateLimitDecision;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.runtime.SluiceRuntime;
import dev.sluice.test.RedisServer;
import dev.sluice.test.SchedulerStalls;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static dev.sluice.internal.limit.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;

/** What the engine promises on a real Redis: round trips, script recovery, admission under load, memory. */
class RedisRateLimitEngineIT {

    @RegisterExtension
    static final RedisServer REDIS = RedisServer.standalone();

    private SluiceRuntime runtime;
    private RateLimitEngine engine;

    @BeforeEach
    void start() {
        SluiceConfig config = SluiceConfigLoader.load(ConfigSources.of(Map.of("sluice.redis.uri", REDIS.uri())));
        runtime = SluiceRuntime.start(config);
        engine = runtime.rateLimits();
    }

    @AfterEach
    void stop() {
        runtime.close();
    }

    private long redisMicros() {
        List<String> time = REDIS.admin().sendCommand(redis.clients.jedis.Protocol.Command.TIME) instanceof List<?> l
                ? l.stream().map(o -> new String((byte[]) o, java.nio.charset.StandardCharsets.US_ASCII)).toList()
                : List.of();
        return Long.parseLong(time.get(0)) * 1_000_000L + Long.parseLong(time.get(1));
    }

    @Test
    void everyDecisionIsExactlyOneEvalshaEvenWithThreePolicies() {
        PolicyConfig perIp = policy("per-ip", 1_000_000, Duration.ofHours(1));
        PolicyConfig perUser = policy("per-user", 1_000_000, 1_000_000, Duration.ofHours(1), 2_000_000, Duration.ofDays(1));
        PolicyConfig global = policy("global", 1_000_000, Duration.ofHours(1));
        engine.decide(perIp, "warm-up", 1);
        REDIS.resetStats();

        for (int i = 0; i < 1_000; i++) {
            if (i % 2 == 0) {
                List<RateLimitDecision> decisions = engine.decide(List.of(
                        new RateLimitEngine.LimitCall(perIp, "10.0.0." + (i % 7), 1),
                        new RateLimitEngine.LimitCall(perUser, "user-" + (i % 5), 1),
                        new RateLimitEngine.LimitCall(global, "all", 1)));
                assertThat(decisions).hasSize(3).allMatch(RateLimitDecision::allowed);
            } else {
                assertThat(engine.decide(perIp, "10.0.0." + (i % 7), 1).allowed()).isTrue();
            }
        }

        assertThat(REDIS.commandCount("evalsha")).isEqualTo(1_000);
        assertThat(REDIS.commandCount("eval")).isZero();
        assertThat(REDIS.commandCount("script|load")).isZero();
        // Redis counts the script's own reads in commandstats too: one MGET of all bucket keys per decision
        // (4 keys for the three-policy requests, per-user having two bandwidths), and not one more from the client.
        assertThat(REDIS.commandCount("mget")).isEqualTo(1_000);
        assertThat(REDIS.commandCount("get")).isZero();
    }

    @Test
    void scriptFlushBetweenTwoDecisionsIsInvisible() {
        PolicyConfig p = policy("p", 5, Duration.ofHours(1));
        assertThat(engine.decide(p, "k", 1).remaining()).isEqualTo(4);
        REDIS.admin().scriptFlush();
        assertThat(engine.decide(p, "k", 1).remaining()).isEqualTo(3);
    }

    @Test
    void aRedisRestartBetweenTwoDecisionsIsInvisibleOnceItIsBack() {
        REDIS.assumeControllable();
        PolicyConfig p = policy("p", 5, Duration.ofHours(1));
        assertThat(engine.decide(p, "k", 1).allowed()).isTrue();
        REDIS.stop();
        REDIS.start();
        // The restarted server has neither the script nor the bucket: a fresh bucket, no error.
        assertThat(engine.decide(p, "k", 1).remaining()).isEqualTo(4);
    }

    @Test
    void sixteenThreadsOnOneKeyAreAdmittedAtTheConfiguredRateOnTheRedisClock() throws Exception {
        long burst = 50;
        long perSecond = 400;
        PolicyConfig p = policy("hot", burst, perSecond, Duration.ofSeconds(1));
        int threads = 16;
        CyclicBarrier barrier = new CyclicBarrier(threads + 1);
        AtomicLong admitted = new AtomicLong();
        AtomicLong firstCallStart = new AtomicLong(Long.MAX_VALUE);
        AtomicLong lastCallEnd = new AtomicLong(Long.MIN_VALUE);
        long runNanos = Duration.ofSeconds(6).toNanos();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        // The bucket holds a burst's worth (125 ms at this rate): while no call reaches Redis for longer, it is
        // full and what it would earn is lost. Only a machine that keeps this JVM off the CPU does that.
        SchedulerStalls stalls = SchedulerStalls.start(Duration.ofMillis(1000 * burst / perSecond));
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                futures.add(pool.submit(() -> {
                    barrier.await();
                    long start = System.nanoTime();
                    firstCallStart.accumulateAndGet(start, Math::min);
                    long end = start + runNanos;
                    long now = start;
                    while (now < end) {
                        if (engine.decide(p, "one-key", 1).allowed()) {
                            admitted.incrementAndGet();
                        }
                        now = System.nanoTime();
                    }
                    lastCallEnd.accumulateAndGet(now, Math::max);
                    return null;
                }));
            }
            long redisBefore = redisMicros();
            barrier.await();
            for (Future<?> f : futures) {
                f.get(30, TimeUnit.SECONDS);
            }
            long redisAfter = redisMicros();

            // Upper bound on the Redis clock, from before the first call to after the last one: it can only be
            // longer than the span the calls covered, so the bound is never too tight.
            double redisSeconds = (redisAfter - redisBefore) / 1e6;
            double ceiling = burst + perSecond * redisSeconds;
            // Lower bound over the span the callers were actually calling (same machine, same clock rate).
            double activeSeconds = (lastCallEnd.get() - firstCallStart.get()) / 1e9;
            // Less what the bucket could not hold while this JVM was kept off the CPU (zero on a quiet machine).
            double earned = burst + perSecond * (activeSeconds - stalls.total().toNanos() / 1e9);
            System.out.printf("admitted %d; ceiling %.1f over %.3f s on the Redis clock; %.1f%% of %.1f earned in %.3f s of calls; %s%n",
                    admitted.get(), ceiling, redisSeconds, 100.0 * admitted.get() / earned, earned, activeSeconds, stalls);
            assertThat((double) admitted.get()).isLessThanOrEqualTo(ceiling).isGreaterThanOrEqualTo(0.95 * earned);
        } finally {
            pool.shutdownNow();
            stalls.close();
        }
    }

    @Test
    void steadyTrafficAtNinetyPercentOfTheRateIsNeverDeniedForThreeWindows() throws Exception {
        PolicyConfig p = policy("steady", 20, Duration.ofSeconds(1));
        int requests = 18 * 4;
        AtomicInteger denied = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        ScheduledExecutorService clock = Executors.newSingleThreadScheduledExecutor();
        try {
            long periodMicros = 1_000_000 / 18;
            clock.scheduleAtFixedRate(() -> {
                if (done.get() >= requests) {
                    return;
                }
                if (!engine.decide(p, "steady-client", 1).allowed()) {
                    denied.incrementAndGet();
                }
                done.incrementAndGet();
            }, 0, periodMicros, TimeUnit.MICROSECONDS);
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(15)).until(() -> done.get() >= requests);
        } finally {
            clock.shutdownNow();
        }
        assertThat(denied.get()).isZero();
    }

    @Test
    void aBucketKeyExpiresWhenTheBucketIsFullAgain() {
        PolicyConfig p = policy("p", 5, Duration.ofMinutes(1));
        engine.decide(p, "k", 1);
        RateLimitDecision second = engine.decide(p, "k", 1);
        long pttl = REDIS.admin().pttl(engine.bucketKey("p", "k"));
        assertThat(pttl).isBetween(second.resetMillis() - 1_000, second.resetMillis());
    }

    @Test
    void oneBucketKeyTakesAtMostEightyBytesOfRedisMemory() {
        PolicyConfig login = policy("login", 5, Duration.ofMinutes(1));
        engine.decide(login, "203.0.113.77", 1);
        String key = engine.bucketKey("login", "203.0.113.77");
        Long bytes = REDIS.admin().memoryUsage(key);
        System.out.println("MEMORY USAGE " + key + " = " + bytes + " bytes");
        assertThat(bytes).isNotNull().isLessThanOrEqualTo(80L);
        assertThat(REDIS.admin().objectEncoding(key)).isEqualTo("int");
    }

    /**
     * 3/10s: a token every 3,333,333 1/3 µs. The bucket carries its remainder, yet Redis keeps it as an integer,
     * at the same size as a bucket whose interval is whole microseconds under a key name of the same length.
     */
    @Test
    void aBucketWhoseIntervalIsNotWholeMicrosecondsTakesNoMoreMemoryThanAWholeOne() {
        PolicyConfig thirds = policy("ab", 3, Duration.ofSeconds(10));
        PolicyConfig whole = policy("cd", 5, Duration.ofMinutes(1));
        engine.decide(thirds, "203.0.113.77", 1);
        engine.decide(whole, "203.0.113.77", 1);
        String fractional = engine.bucketKey("ab", "203.0.113.77");
        String integral = engine.bucketKey("cd", "203.0.113.77");
        assertThat(fractional).hasSameSizeAs(integral);
        Long bytes = REDIS.admin().memoryUsage(fractional);
        System.out.println("MEMORY USAGE " + fractional + " = " + bytes + " bytes (" + REDIS.admin().objectEncoding(fractional)
                + "), " + integral + " = " + REDIS.admin().memoryUsage(integral) + " bytes");
        assertThat(REDIS.admin().objectEncoding(fractional)).isEqualTo("int");
        assertThat(bytes).isEqualTo(REDIS.admin().memoryUsage(integral));
    }

    /** A bucket written in the other form, the TAT, ':' and the remainder, is read exactly as the integer form. */
    @Test
    void aBucketWithItsRemainderAfterAColonIsReadAsTheIntegerForm() {
        PolicyConfig thirds = policy("ab", 3, Duration.ofSeconds(10));
        engine.decide(thirds, "k", 1);
        String key = engine.bucketKey("ab", "k");
        String composite = REDIS.admin().get(key);
        assertThat(composite).matches("\\d{19}");
        long remainder = Long.parseLong(composite.substring(16));
        assertThat(remainder).as("a third of a µs in units of 1/3 µs").isBetween(1L, 2L);
        REDIS.admin().psetex(key, REDIS.admin().pttl(key), composite.substring(0, 16) + ":" + remainder);

        assertThat(engine.decide(thirds, "k", 1).remaining()).isEqualTo(1);
        assertThat(REDIS.admin().get(key)).as("rewritten in the integer form").matches("\\d{19}");
    }

    /**
     * More than 1000 units per microsecond (1001/1h, 9999/1s, 999999/1s): the remainder needs more digits than
     * an absolute TAT leaves in a 64-bit integer, yet the bucket is an integer of the same size as any other
     * ({@code GcraDifferentialIT} checks that such buckets decide exactly as the Java twin does).
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"1001, PT1H", "9999, PT1S", "999999, PT1S"})
    void aRateOfMoreThanAThousandUnitsPerMicrosecondIsAnIntegerToo(int tokens, Duration period) {
        PolicyConfig fine = policy("ab", tokens, period);
        PolicyConfig whole = policy("cd", 5, Duration.ofMinutes(1));
        assertThat(fine.bandwidths().get(0).unitsPerMicro()).isGreaterThan(1000);
        String key = engine.bucketKey("ab", "203.0.113.77");
        String integral = engine.bucketKey("cd", "203.0.113.77");
        REDIS.admin().del(key, integral);
        // half the bucket, so that it stays in Redis for half a period (a token of 9999/1s is 100 µs)
        assertThat(engine.decide(fine, "203.0.113.77", tokens / 2).allowed()).isTrue();
        engine.decide(whole, "203.0.113.77", 1);
        assertThat(REDIS.admin().objectEncoding(key)).as(REDIS.admin().get(key)).isEqualTo("int");
        assertThat(REDIS.admin().memoryUsage(key)).isEqualTo(REDIS.admin().memoryUsage(integral));
    }

    /** A bucket of such a rate written as the TAT, ':' and the remainder is read exactly, and rewritten. */
    @Test
    void aFineRateBucketWithItsRemainderAfterAColonIsReadExactly() {
        PolicyConfig fine = policy("ab", 1001, Duration.ofHours(1));
        String key = engine.bucketKey("ab", "colon");
        REDIS.admin().del(key);
        engine.decide(fine, "colon", 1);
        long ttl = REDIS.admin().pttl(key);
        // one token taken: the TAT is one interval (3,600,000,000 / 1001 µs = 3,596,403 µs and 597/1001) ahead
        long now = (Long) REDIS.admin().eval("local t = redis.call('TIME') return t[1] * 1000000 + t[2]");
        REDIS.admin().psetex(key, ttl, (now + 3_596_403) + ":597");
        assertThat(engine.decide(fine, "colon", 1).remaining()).isEqualTo(999);
        assertThat(REDIS.admin().objectEncoding(key)).isEqualTo("int");
    }
}
