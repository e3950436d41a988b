package dev.sluice.internal.runtime;

import dev.sluice.LockHandle;
import dev.sluice.Permit;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.StoreUnavailableException;
import dev.sluice.internal.limit.RateLimitEngine;
import dev.sluice.test.LogCapture;
import dev.sluice.test.RedisProcess;
import dev.sluice.test.RedisServer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.logging.Level;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Redis password in no log line and no exception, across a whole life: start with the password in the URI and
 * in {@code sluice.redis.password}, rate limits through the gate, locks and semaphores, Redis killed while a lock is
 * held and requests keep coming, Redis hung, restarted, a wrong password, configuration mistakes around the password,
 * an unreachable Redis at startup. Every record of every logger (Sluice's and Jedis's, down to the finest level) and
 * every exception with its causes and stack trace is searched.
 */
class SecretsNeverLeakIT {

    private static final String PASSWORD = "Pw-7f3a-never-in-logs";

    @RegisterExtension
    static final RedisServer REDIS = RedisServer.withArgs("--requirepass", PASSWORD);

    @RegisterExtension
    final LogCapture logs = new LogCapture();

    private final StringBuilder seen = new StringBuilder();
    private int exceptions;
    private Level rootLevel;

    @BeforeEach
    void logEverything() {
        rootLevel = Logger.getLogger("").getLevel();
        Logger.getLogger("").setLevel(Level.ALL);
    }

    @AfterEach
    void restoreLevel() {
        Logger.getLogger("").setLevel(rootLevel);
    }

    @Test
    void thePasswordAppearsInNoLogRecordAndNoExceptionAcrossAWholeScenario() throws Exception {
        REDIS.assumeControllable();
        String inUri = REDIS.uri().replace("redis://", "redis://:" + PASSWORD + "@");
        SluiceConfig config = config(Map.of("sluice.redis.uri", inUri));
        SluiceRuntime runtime = SluiceRuntime.start(config);
        SluiceRuntime otherNode = SluiceRuntime.start(config(Map.of("sluice.redis.uri", REDIS.uri(),
                "sluice.redis.password", PASSWORD)));
        RateLimitEngine limits = runtime.rateLimits();
        PolicyConfig api = config.policy("api").orElseThrow();
        record(runtime, otherNode, config, config.redis(), runtime.redis().orElseThrow());

        for (int i = 0; i < 5; i++) {
            record(limits.decide(api, "192.0.2.1", 1));
        }
        try (Permit permit = otherNode.locks().semaphore("pdf", 1).acquire(Duration.ofSeconds(1), Duration.ZERO)) {
            record(permit);
        }

        // Redis dies with a lock held, requests keep coming, another node wants the lock.
        LockHandle held = runtime.locks().lock("order:1").acquire(Duration.ofMillis(600), Duration.ZERO);
        REDIS.kill();
        for (int i = 0; i < 10; i++) {
            record(() -> limits.decide(api, "192.0.2.1", 1));
            record(() -> otherNode.locks().lock("order:1").acquire(Duration.ofSeconds(1), Duration.ofMillis(50)));
            record(() -> otherNode.locks().semaphore("pdf", 1).acquire(Duration.ofSeconds(1), Duration.ZERO));
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> !held.isHeld());
        record(() -> {
            held.close();
            return null;
        });

        // Back, then hung, then back again.
        REDIS.start();
        await().atMost(Duration.ofSeconds(5)).until(() -> decidedByRedis(limits, api, "192.0.2.2"));
        REDIS.pause();
        for (int i = 0; i < 4; i++) {
            record(() -> limits.decide(api, "192.0.2.3", 1));
            record(() -> runtime.rateLimits().decide(api, "192.0.2.3", 1));
        }
        REDIS.resume();
        record(runtime.redis().orElseThrow().ping());
        otherNode.close();
        runtime.close();

        // Deployments that fail: a wrong password, mistakes next to the password, an unreachable Redis.
        record(() -> SluiceRuntime.start(config(Map.of("sluice.redis.uri", REDIS.uri(),
                "sluice.redis.password", PASSWORD + "-typo"))));
        record(() -> SluiceRuntime.start(config(Map.of("sluice.redis.uri", inUri.replace("redis://", "http://")))));
        record(() -> SluiceRuntime.start(config(Map.of("sluice.redis.uri", inUri + "/x"))));
        record(() -> SluiceRuntime.start(config(Map.of("sluice.redis.uri", inUri, "sluice.redis.password", PASSWORD))));
        record(() -> SluiceRuntime.start(config(Map.of("sluice.redis.pasword", PASSWORD))));
        try (SluiceRuntime unreachable = SluiceRuntime.start(config(Map.of("sluice.redis.uri",
                "redis://:" + PASSWORD + "@127.0.0.1:" + RedisProcess.freePort(), "sluice.redis.timeout", "200ms")))) {
            record(unreachable.redis().orElseThrow());
            record(() -> unreachable.rateLimits().decide(api, "192.0.2.4", 1));
            record(() -> unreachable.locks().lock("x").acquire(Duration.ofSeconds(1), Duration.ZERO));
        }

        List<String> texts = logs.texts();
        System.out.println(texts.size() + " log records and " + exceptions + " exceptions searched; loggers "
                + logs.records().stream().map(r -> r.getLoggerName()).distinct().sorted().toList());
        assertThat(texts).as("something was logged").isNotEmpty();
        assertThat(logs.records(Level.WARNING, "dev.sluice")).as("warnings about the outage").isNotEmpty();
        assertThat(exceptions).as("exceptions thrown").isGreaterThan(10);
        assertThat(String.join("\n", texts)).doesNotContain(PASSWORD);
        assertThat(seen.toString()).doesNotContain(PASSWORD);
    }

    private SluiceConfig config(Map<String, String> redis) {
        Map<String, String> values = new HashMap<>(redis);
        values.put("sluice.limit.api.rate", "100/1m");
        values.putIfAbsent("sluice.redis.timeout", "300ms");
        return SluiceConfigLoader.load(ConfigSources.of(values));
    }

    /** Keeps {@code String.valueOf} of everything the application might print. */
    private void record(Object... objects) {
        for (Object o : objects) {
            seen.append(o).append('\n');
        }
    }

    private boolean decidedByRedis(RateLimitEngine limits, PolicyConfig policy, String key) {
        try {
            record(limits.decide(policy, key, 1));
            return true;
        } catch (StoreUnavailableException e) {
            return false;
        }
    }

    /** Runs {@code action}; keeps its result's text, or its exception with causes and stack trace. */
    private void record(Callable<?> action) {
        try {
            record(action.call());
        } catch (Exception e) {
            StringWriter trace = new StringWriter();
            e.printStackTrace(new PrintWriter(trace));
            exceptions++;
            seen.append(trace).append('\n');
        }
    }
}
