package dev.sluice.internal.http;

import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.FailureMode;
import dev.sluice.internal.config.HeaderMode;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.http.Verdict.Outcome;
import dev.sluice.internal.limit.RateLimitEngine.LimitCall;
import dev.sluice.internal.redis.LuaScript;
import dev.sluice.internal.runtime.SluiceRuntime;
import dev.sluice.test.LogCapture;
import dev.sluice.test.RedisServer;
import dev.sluice.test.SchedulerStalls;

import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import redis.clients.jedis.Connection;
import redis.clients.jedis.RedisClient;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Redis faults while 50 callers go through the rate-limit gate (what the servlet filter and JAX-RS call): Redis
 * killed with {@code kill -9}, hung with {@code SIGSTOP}, the connection pool exhausted, and an operator's
 * replacement script failing at run time. For each:
 * <ul>
 *   <li>every verdict during the fault is the configured failure mode ({@code allow}: admitted without headers;
 *       {@code deny}: 503 with {@code Retry-After}), never an exception and never a 429 made up from nothing;</li>
 *   <li>no caller waits longer than {@code sluice.redis.timeout} (or, for pool exhaustion,
 *       {@code sluice.redis.pool.max-wait}) plus 250 ms, measured per call (room for scheduling on a loaded two-core
 *       machine, and for a decision queued behind a batch already in flight; waiting out a second timeout
 *       would take 500 ms more), plus the longest time the machine kept a thread of this JVM from running
 *       ({@link SchedulerStalls}: zero on a quiet machine);</li>
 *   <li>once the fault is gone, limiting resumes within 2 s, and really limits;</li>
 *   <li>the breaker logs one warning when it opens and one when it closes, however many callers are in flight.</li>
 * </ul>
 * Each test prints what it measured. The soak profile ({@code -Psoak}) holds each fault for
 * {@code sluice.soak.seconds} instead of one second.
 */
class RateLimitGateFaultsIT {

    private static final int CALLERS = 50;
    private static final Duration TIMEOUT = Duration.ofMillis(500);
    private static final Duration MAX_WAIT = Duration.ofMillis(200);
    private static final Duration SLACK = Duration.ofMillis(250);
    private static final Duration RESUMES_WITHIN = Duration.ofSeconds(2);
    private static final Duration THINK_TIME = Duration.ofMillis(5);
    private static final Duration FAULT_HELD = Duration.ofSeconds(Long.getLong("sluice.soak.seconds", 1));

    @RegisterExtension
    static final RedisServer REDIS = RedisServer.standalone();

    @RegisterExtension
    final LogCapture logs = new LogCapture();

    @TempDir
    Path dir;

    private SluiceRuntime runtime;

    @AfterEach
    void stop() {
        if (runtime != null) {
            runtime.close();
        }
    }

    @Test
    void redisKilledWithSigkillFailsOpenFastAndLimitingResumesAfterTheRestart() throws Exception {
        REDIS.assumeControllable();
        Report report = underLoad(FailureMode.ALLOW, Map.of(), new Fault() {
            @Override
            public void inject() {
                REDIS.kill();
            }

            @Override
            public void remove() {
                REDIS.start();
            }
        });
        report.print("kill -9, on-redis-failure=allow");
        report.assertBoundedBy(TIMEOUT.plus(SLACK));
        assertThat(report.outcomes).containsOnlyKeys(Outcome.ALLOWED, Outcome.UNAVAILABLE_ALLOWED);
    }

    @Test
    void redisKilledWithSigkillFailsClosedWith503AndRetryAfterWhenConfiguredToDeny() throws Exception {
        REDIS.assumeControllable();
        Report report = underLoad(FailureMode.DENY, Map.of(), new Fault() {
            @Override
            public void inject() {
                REDIS.kill();
            }

            @Override
            public void remove() {
                REDIS.start();
            }
        });
        report.print("kill -9, on-redis-failure=deny");
        report.assertBoundedBy(TIMEOUT.plus(SLACK));
        assertThat(report.outcomes).containsOnlyKeys(Outcome.ALLOWED, Outcome.UNAVAILABLE_DENIED);
        assertThat(report.smallestRetryAfter.get()).as("Retry-After of a 503").isGreaterThanOrEqualTo(1);
    }

    @Test
    void redisHungWithSigstopCostsACallerAtMostTheTimeoutAndLimitingResumesAfterSigcont() throws Exception {
        REDIS.assumeControllable();
        Report report = underLoad(FailureMode.ALLOW, Map.of(), new Fault() {
            @Override
            public void inject() {
                REDIS.pause();
            }

            @Override
            public void remove() {
                REDIS.resume();
            }
        });
        report.print("SIGSTOP (hang), on-redis-failure=allow");
        report.assertBoundedBy(TIMEOUT.plus(SLACK));
        assertThat(report.outcomes).containsOnlyKeys(Outcome.ALLOWED, Outcome.UNAVAILABLE_ALLOWED);
        assertThat(report.longestFaultCall.get()).as("somebody waited on the hung Redis")
                .isGreaterThanOrEqualTo(TIMEOUT.toNanos() / 2);
    }

    @Test
    void anExhaustedPoolCostsACallerAtMostTheMaxWaitAndLimitingResumesOnceConnectionsReturn() throws Exception {
        List<Connection> held = new ArrayList<>();
        Report report = underLoad(FailureMode.DENY, Map.of("sluice.redis.pool.max-total", "4",
                "sluice.redis.pool.max-wait", MAX_WAIT.toMillis() + "ms"), new Fault() {
            @Override
            public void inject() {
                // Something else in the application holds every connection: nothing is left for rate limits.
                // Taken while the callers are between calls, so the pool is exhausted at once rather than
                // connection by connection (which the breaker would rightly see as Redis coming and going).
                RedisClient client = (RedisClient) runtime.redis().orElseThrow().client();
                for (int i = 0; i < 4; i++) {
                    held.add(client.getPool().getResource());
                }
            }

            @Override
            public boolean injectBetweenCalls() {
                return true;
            }

            @Override
            public boolean opensTheBreaker() {
                return false;
            }

            @Override
            public void remove() {
                held.forEach(Connection::close);
            }
        });
        report.print("pool exhausted (max-total 4, max-wait " + MAX_WAIT.toMillis() + " ms), on-redis-failure=deny");
        assertThat(Duration.ofNanos(report.longestUnavailableCall.get())).as("longest refused call; %s", report.stalls)
                .isLessThanOrEqualTo(MAX_WAIT.plus(SLACK).plus(report.stalls.longest()));
        // A caller that got a connection just before max-wait ran out still runs its command, bounded by the timeout.
        report.assertBoundedBy(MAX_WAIT.plus(TIMEOUT).plus(SLACK));
        assertThat(report.outcomes).containsOnlyKeys(Outcome.ALLOWED, Outcome.UNAVAILABLE_DENIED);
        assertThat(report.longestFaultCall.get()).as("somebody waited for a connection")
                .isGreaterThanOrEqualTo(MAX_WAIT.toNanos() / 2);
    }

    @Test
    void aRedisOutOfMemoryFailsEachCallPerTheFailureModeButDoesNotSwitchTheLimitsOff() throws Exception {
        Report report = underLoad(FailureMode.ALLOW, Map.of(), new Fault() {
            @Override
            public void inject() {
                REDIS.admin().configSet("maxmemory", "1");
            }

            @Override
            public boolean opensTheBreaker() {
                return false;
            }

            @Override
            public void remove() {
                REDIS.admin().configSet("maxmemory", "0");
            }
        });
        report.print("Redis out of memory (maxmemory 1, noeviction), on-redis-failure=allow");
        report.assertBoundedBy(TIMEOUT.plus(SLACK));
        assertThat(report.outcomes).containsOnlyKeys(Outcome.ALLOWED, Outcome.UNAVAILABLE_ALLOWED);
    }

    @Test
    void aReplacementScriptFailingAtRunTimeCountsAsAFailureOfRedisAndTheWarningNamesIt() throws Exception {
        // The operator's gcra.lua: the bundled one behind a guard that breaks at run time (arithmetic on a string)
        // whenever the key resilience:broken holds a word. It compiles, so the deployment succeeds.
        Path script = dir.resolve("gcra.lua");
        Files.writeString(script, "local broken = redis.call('GET', 'resilience:broken')\n"
                + "if broken then return broken + 1 end\n"
                + LuaScript.bundled("gcra").source(),
                StandardCharsets.UTF_8);
        Report report = underLoad(FailureMode.ALLOW, Map.of("sluice.script.gcra", "file:" + script), new Fault() {
            @Override
            public void inject() {
                REDIS.admin().set("resilience:broken", "yes");
            }

            @Override
            public void remove() {
                REDIS.admin().del("resilience:broken");
            }
        });
        report.print("replacement script failing at run time, on-redis-failure=allow");
        report.assertBoundedBy(TIMEOUT.plus(SLACK));
        assertThat(report.outcomes).containsOnlyKeys(Outcome.ALLOWED, Outcome.UNAVAILABLE_ALLOWED);
        List<String> warnings = logs.records(Level.WARNING, "dev.sluice").stream().map(logs::text)
                .filter(text -> text.contains("in a row")).toList();
        assertThat(warnings.get(0)).as("the warning says which script failed and how")
                .contains("Lua script gcra (file:" + script + ")", "user_script");
    }

    // ------------------------------------------------------------------------------------------------ harness

    /** A fault the test injects and removes. */
    private interface Fault {
        void inject() throws Exception;

        void remove() throws Exception;

        /**
         * Whether the callers must be between two calls while the fault is injected; otherwise it hits them
         * mid-call, as a real outage does.
         */
        default boolean injectBetweenCalls() {
            return false;
        }

        /**
         * Whether the fault is Redis failing, which opens the breaker; an exhausted pool or a full Redis is
         * what a flood produces on a healthy Redis and must not switch every limit off.
         */
        default boolean opensTheBreaker() {
            return true;
        }
    }

    /**
     * Starts a runtime with {@code extra} configuration and 50 callers, waits until they are being limited, injects
     * the fault and holds it (while the callers keep calling) until every caller has met it, removes it and polls
     * until a caller is decided by Redis again, then checks a fresh key is really limited.
     */
    private Report underLoad(FailureMode mode, Map<String, String> extra, Fault fault) throws Exception {
        Map<String, String> values = new HashMap<>(extra);
        values.put("sluice.redis.uri", REDIS.uri());
        values.put("sluice.redis.timeout", TIMEOUT.toMillis() + "ms");
        values.put("sluice.limit.api.rate", "1000000/1s");
        values.put("sluice.limit.strict.rate", "5/1h");
        values.put("sluice.on-redis-failure", mode.name().toLowerCase(java.util.Locale.ROOT));
        SluiceConfig config = SluiceConfigLoader.load(ConfigSources.of(values));
        runtime = SluiceRuntime.start(config);
        RateLimitGate gate = RateLimitGate.of(runtime, HeaderMode.IETF);
        PolicyConfig api = config.policy("api").orElseThrow();
        PolicyConfig strict = config.policy("strict").orElseThrow();

        Report report = new Report();
        ExecutorService pool = Executors.newFixedThreadPool(CALLERS);
        CyclicBarrier start = new CyclicBarrier(CALLERS);
        List<Future<?>> callers = new ArrayList<>();
        for (int c = 0; c < CALLERS; c++) {
            String client = "192.0.2." + c;
            callers.add(pool.submit(() -> {
                start.await();
                while (!report.stop.get()) {
                    report.betweenCalls.readLock().lock();
                    try {
                        report.call(() -> gate.check(List.of(new LimitCall(api, client, 1))));
                        if (gate.isBreakerOpen()) {
                            report.breakerSeenOpen.set(true);
                        }
                    } finally {
                        report.betweenCalls.readLock().unlock();
                    }
                    // Requests arrive; callers do not spin. Without a pause, 50 threads answered at once by an
                    // open breaker would starve everything else on two CPUs, Redis's restart included.
                    LockSupport.parkNanos(THINK_TIME.toNanos());
                }
                return null;
            }));
        }
        try {
            await().atMost(Duration.ofSeconds(20)).until(() -> report.decided.sum() >= 5L * CALLERS);

            if (fault.injectBetweenCalls()) {
                report.betweenCalls.writeLock().lock();
            }
            try {
                report.faultFrom.set(System.nanoTime());
                fault.inject();
            } finally {
                if (fault.injectBetweenCalls()) {
                    report.betweenCalls.writeLock().unlock();
                }
            }
            long unavailableBefore = report.unavailable.sum();
            await().atMost(Duration.ofSeconds(20)).until(() -> report.unavailable.sum() >= unavailableBefore + CALLERS);
            // Holding the fault is the scenario: the callers keep calling into it meanwhile.
            TimeUnit.NANOSECONDS.sleep(FAULT_HELD.toNanos());
            fault.remove();
            // From here Redis is back (answering, restarted, resumed, its connections returned or the script
            // working again): limiting must resume within RESUMES_WITHIN of this instant.
            long removedAt = System.nanoTime();
            report.faultUntil.set(removedAt);
            try {
                await().atMost(RESUMES_WITHIN).pollInterval(Duration.ofMillis(10))
                        .until(() -> report.firstDecidedAfterTheFault.get() != Long.MAX_VALUE);
            } catch (ConditionTimeoutException e) {
                throw new AssertionError("limiting did not resume within " + RESUMES_WITHIN + "; breaker open: "
                        + gate.isBreakerOpen() + "; verdicts so far " + report.counts(), e);
            }
            report.resumedAfterNanos = report.firstDecidedAfterTheFault.get() - removedAt;
        } finally {
            report.stop.set(true);
            for (Future<?> caller : callers) {
                caller.get(30, TimeUnit.SECONDS);
            }
            pool.shutdown();
            report.stalls.close();
        }

        List<Outcome> fresh = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            fresh.add(gate.check(List.of(new LimitCall(strict, "after-the-fault", 1))).outcome());
        }
        assertThat(fresh).as("limiting, not only answering, after the fault")
                .containsExactly(Outcome.ALLOWED, Outcome.ALLOWED, Outcome.ALLOWED, Outcome.ALLOWED, Outcome.ALLOWED,
                        Outcome.DENIED);
        assertThat(report.errors).as("exceptions thrown to callers").isEmpty();
        List<String> breakerLines = logs.records(Level.WARNING, "dev.sluice").stream().map(logs::text)
                .filter(text -> text.contains("in a row") || text.contains("reachable again")).toList();
        if (fault.opensTheBreaker()) {
            assertThat(breakerLines).as("one warning when the breaker opened and one when it closed, no flapping")
                    .hasSize(2);
            assertThat(breakerLines.get(0)).contains("in a row");
        } else {
            assertThat(breakerLines).as("a flood is not an outage: the breaker stays closed").isEmpty();
            assertThat(report.breakerSeenOpen).as("the breaker never opened").isFalse();
        }
        return report;
    }

    /** What the callers saw. */
    private static final class Report {
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicBoolean breakerSeenOpen = new AtomicBoolean();
        /** Callers hold it (shared) for each call; a fault that must land between calls takes it exclusively. */
        final ReentrantReadWriteLock betweenCalls = new ReentrantReadWriteLock();
        final LongAdder decided = new LongAdder();
        final LongAdder unavailable = new LongAdder();
        final Map<Outcome, LongAdder> outcomes = new ConcurrentHashMap<>();
        final AtomicLong longestCall = new AtomicLong();
        final AtomicReference<String> longestCallOutcome = new AtomicReference<>("-");
        final AtomicLong longestFaultCall = new AtomicLong();
        final AtomicLong longestUnavailableCall = new AtomicLong();
        final AtomicLong smallestRetryAfter = new AtomicLong(Long.MAX_VALUE);
        final AtomicLong faultFrom = new AtomicLong(Long.MAX_VALUE);
        final AtomicLong faultUntil = new AtomicLong(Long.MAX_VALUE);
        /** When the first call that started after the fault was removed got a decision from Redis (nano time). */
        final AtomicLong firstDecidedAfterTheFault = new AtomicLong(Long.MAX_VALUE);
        final Set<Throwable> errors = ConcurrentHashMap.newKeySet();
        /** How long the machine kept this JVM's threads waiting for a CPU; added to every bound (0 when quiet). */
        final SchedulerStalls stalls = SchedulerStalls.start(Duration.ofMillis(50));
        long resumedAfterNanos;

        void call(java.util.function.Supplier<Verdict> check) {
            long started = System.nanoTime();
            Verdict verdict;
            try {
                verdict = check.get();
            } catch (RuntimeException e) {
                errors.add(e);
                return;
            }
            long ended = System.nanoTime();
            long took = ended - started;
            outcomes.computeIfAbsent(verdict.outcome(), o -> new LongAdder()).increment();
            // The bound is about faults: from the moment one is injected, through recovery. The warm-up before
            // (first calls of a fresh JVM on a busy machine: class loading, JIT) is not what is measured.
            if (started - faultFrom.get() >= 0 && longestCall.accumulateAndGet(took, Math::max) == took) {
                longestCallOutcome.set(verdict.outcome().name());
            }
            boolean duringFault = started - faultFrom.get() >= 0 && faultUntil.get() - started > 0;
            if (duringFault) {
                longestFaultCall.accumulateAndGet(took, Math::max);
            }
            switch (verdict.outcome()) {
                case ALLOWED, DENIED -> {
                    decided.increment();
                    if (started - faultUntil.get() >= 0) {
                        firstDecidedAfterTheFault.accumulateAndGet(ended, Math::min);
                    }
                }
                case UNAVAILABLE_DENIED -> {
                    unavailable.increment();
                    longestUnavailableCall.accumulateAndGet(took, Math::max);
                    smallestRetryAfter.accumulateAndGet(retryAfter(verdict), Math::min);
                }
                case UNAVAILABLE_ALLOWED -> {
                    unavailable.increment();
                    longestUnavailableCall.accumulateAndGet(took, Math::max);
                }
            }
        }

        void assertBoundedBy(Duration bound) {
            assertThat(Duration.ofNanos(longestCall.get())).as("longest call (%s); %s", longestCallOutcome.get(), stalls)
                    .isLessThanOrEqualTo(bound.plus(stalls.longest()));
        }

        Map<Outcome, Long> counts() {
            Map<Outcome, Long> counts = new EnumMap<>(Outcome.class);
            outcomes.forEach((o, n) -> counts.put(o, n.sum()));
            return counts;
        }

        void print(String scenario) {
            System.out.printf("%s with %d callers: longest call from the fault on %d ms (%s), during the fault %d ms, "
                            + "longest failure-mode verdict %d ms; limiting resumed %d ms after the fault was removed; "
                            + "verdicts %s; %s%n",
                    scenario, CALLERS, TimeUnit.NANOSECONDS.toMillis(longestCall.get()), longestCallOutcome.get(),
                    TimeUnit.NANOSECONDS.toMillis(longestFaultCall.get()),
                    TimeUnit.NANOSECONDS.toMillis(longestUnavailableCall.get()),
                    TimeUnit.NANOSECONDS.toMillis(resumedAfterNanos), counts(), stalls);
        }
    }

    private static long retryAfter(Verdict verdict) {
        return verdict.headers().stream().filter(h -> h.name().equals(RateLimitHeaders.RETRY_AFTER))
                .mapToLong(h -> Long.parseLong(h.value())).findFirst().orElseThrow();
    }
}
