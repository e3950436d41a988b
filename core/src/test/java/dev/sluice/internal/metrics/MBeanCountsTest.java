package dev.sluice.internal.metrics;

import dev.sluice.DistributedLock;
import dev.sluice.DistributedSemaphore;
import dev.sluice.LockHandle;
import dev.sluice.LockLostException;
import dev.sluice.LockNotAcquiredException;
import dev.sluice.Permit;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.limit.ChargeMode;
import dev.sluice.internal.limit.Admission;
import dev.sluice.internal.limit.RateLimitEngine;
import dev.sluice.internal.limit.RateLimitEngine.LimitCall;
import dev.sluice.StoreUnavailableException;
import dev.sluice.internal.runtime.SluiceRuntime;
import dev.sluice.test.LogCapture;
import dev.sluice.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A known sequence of rate-limit decisions, lock and semaphore operations on a real Redis, then the MBeans
 * a JMX console would show: exact counts, exactly the configured names, nothing left after undeploy.
 */
class MBeanCountsTest {

    @RegisterExtension
    static RedisServer redis = RedisServer.standalone();

    @RegisterExtension
    LogCapture logs = new LogCapture();

    private static final String APP = "mbean-counts";
    private static final Duration LEASE = Duration.ofSeconds(30);

    private SluiceRuntime runtime;
    private PolicyConfig api;
    private PolicyConfig login;

    @BeforeEach
    void start() {
        SluiceConfig config = SluiceConfigLoader.load(ConfigSources.of(Map.of(
                "sluice.redis.uri", redis.uri(),
                "sluice.redis.timeout", "500ms",
                "sluice.limit.api.rate", "3/1m",
                "sluice.limit.login.rate", "1/1m",
                "sluice.lock.orders.lease", "30s",
                "sluice.semaphore.pdf.permits", "2")));
        runtime = SluiceRuntime.start(config, APP, null);
        api = config.policy("api").orElseThrow();
        login = config.policy("login").orElseThrow();
    }

    @AfterEach
    void stop() {
        runtime.close();
    }

    @Test
    void shadowedRefusalsAndChargesAfterTheResponseHaveAttributesOfTheirOwn() throws Exception {
        RateLimitEngine engine = runtime.rateLimits();
        for (int i = 0; i < 3; i++) {
            engine.decide(List.of(new LimitCall(login, "carol", 1, ChargeMode.SHADOW)));   // 1 allowed, 2 would deny
        }
        engine.decide(List.of(new LimitCall(api, "dave", 1, ChargeMode.CHECK)));           // allowed, not charged
        engine.decide(List.of(new LimitCall(api, "dave", 1, ChargeMode.CHARGE)));          // a counted response
        runtime.metrics().policy("api").exempt();

        assertThat(Jmx.count("RateLimit", APP, "login", "Allowed")).isEqualTo(1);
        assertThat(Jmx.count("RateLimit", APP, "login", "WouldDeny")).isEqualTo(2);
        assertThat(Jmx.count("RateLimit", APP, "login", "Denied")).isZero();
        assertThat(Jmx.count("RateLimit", APP, "api", "Allowed")).isEqualTo(1);
        assertThat(Jmx.count("RateLimit", APP, "api", "ChargedAfterResponse")).isEqualTo(1);
        assertThat(Jmx.count("RateLimit", APP, "api", "Exempt")).isEqualTo(1);
        assertThat(Jmx.count("RateLimit", APP, "api", "WouldDeny")).isZero();
    }

    @Test
    void mbeansShowExactCountsOfAKnownSequence() throws Exception {
        RateLimitEngine engine = runtime.rateLimits();
        for (int i = 0; i < 5; i++) {
            engine.decide(api, "alice", 1);                  // 3 allowed, then 2 denied
        }
        List<LimitCall> both = List.of(new LimitCall(api, "bob", 1), new LimitCall(login, "bob", 1));
        engine.decide(both);                                 // both allow: admitted, both charged
        engine.decide(both);                                 // login denies; api would allow but charges nothing

        DistributedLock orders = runtime.locks().lock("order:42", "orders");
        orders.acquire(LEASE, Duration.ZERO).close();
        try (LockHandle outer = orders.acquire(LEASE, Duration.ZERO);
             LockHandle reentered = orders.acquire(LEASE, Duration.ZERO)) {
            assertThat(reentered.fencingToken()).isEqualTo(outer.fencingToken());
        }
        try (LockHandle held = orders.acquire(LEASE, Duration.ZERO)) {
            CompletableFuture.runAsync(() -> {
                assertThat(runtime.locks().lock("order:42", "orders").tryAcquire(LEASE)).isEmpty();
                assertThatThrownBy(() -> runtime.locks().lock("order:42", "orders").acquire(LEASE, Duration.ofMillis(50)))
                        .isInstanceOf(LockNotAcquiredException.class);
            }).get();
        }
        runtime.locks().lock("user-7").acquire(LEASE, Duration.ZERO).close();

        DistributedSemaphore pdf = runtime.locks().semaphore("pdf", 2);
        try (Permit first = pdf.acquire(LEASE, Duration.ZERO); Permit second = pdf.acquire(LEASE, Duration.ZERO)) {
            assertThat(pdf.tryAcquire(LEASE)).isEmpty();
        }

        assertThat(Jmx.count("RateLimit", APP, "api", "Allowed")).isEqualTo(4);
        assertThat(Jmx.count("RateLimit", APP, "api", "Denied")).isEqualTo(2);
        assertThat(Jmx.count("RateLimit", APP, "login", "Allowed")).isEqualTo(1);
        assertThat(Jmx.count("RateLimit", APP, "login", "Denied")).isEqualTo(1);
        for (String policy : List.of("api", "login")) {
            assertThat(Jmx.count("RateLimit", APP, policy, "RedisErrors")).isZero();
            assertThat(Jmx.count("RateLimit", APP, policy, "FailOpen")).isZero();
            assertThat(Jmx.attribute("RateLimit", APP, policy, "BreakerOpen")).isEqualTo(false);
        }

        assertThat(Jmx.count("Lock", APP, "orders", "Acquired")).isEqualTo(3);
        assertThat(Jmx.count("Lock", APP, "orders", "Released")).isEqualTo(3);
        assertThat(Jmx.count("Lock", APP, "orders", "Timeouts")).isEqualTo(2);
        assertThat(Jmx.count("Lock", APP, "orders", "LeasesLost")).isZero();
        assertThat(Jmx.count("Lock", APP, "orders", "RedisErrors")).isZero();
        assertThat((Double) Jmx.attribute("Lock", APP, "orders", "HoldTotalMillis")).isPositive();
        assertThat((Double) Jmx.attribute("Lock", APP, "orders", "HoldMaxMillis"))
                .isLessThanOrEqualTo((Double) Jmx.attribute("Lock", APP, "orders", "HoldTotalMillis"));
        assertThat(Jmx.count("Lock", APP, SluiceMetrics.OTHER, "Acquired")).isEqualTo(1);
        assertThat(Jmx.count("Lock", APP, SluiceMetrics.OTHER, "Released")).isEqualTo(1);

        assertThat(Jmx.count("Semaphore", APP, "pdf", "Acquired")).isEqualTo(2);
        assertThat(Jmx.count("Semaphore", APP, "pdf", "Released")).isEqualTo(2);
        assertThat(Jmx.count("Semaphore", APP, "pdf", "Timeouts")).isEqualTo(1);

        assertThat(Jmx.attribute("Redis", APP, null, "Mode")).isEqualTo("STANDALONE");
        assertThat(Jmx.attribute("Redis", APP, null, "Reachable")).isEqualTo(true);
        assertThat(Jmx.names(APP)).containsExactlyInAnyOrder(
                Jmx.name("Redis", APP, null).getCanonicalName(),
                Jmx.name("Config", APP, null).getCanonicalName(),
                Jmx.name("RateLimit", APP, "api").getCanonicalName(),
                Jmx.name("RateLimit", APP, "login").getCanonicalName(),
                Jmx.name("Lock", APP, "orders").getCanonicalName(),
                Jmx.name("Lock", APP, SluiceMetrics.OTHER).getCanonicalName(),
                Jmx.name("Semaphore", APP, "pdf").getCanonicalName());
        System.out.println("MBeans of a run (docs/observability.md):\n" + Jmx.dump(APP));
    }

    @Test
    void watchdogRenewalsAndALostLeaseAreCountedOncePerHold() {
        // A lease long enough that a loaded machine's scheduler still renews it before it runs out.
        LockHandle handle = runtime.locks().lock("order:1", "orders").acquire(Duration.ofSeconds(2), Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> Jmx.count("Lock", APP, "orders", "Renewals") >= 1);

        redis.admin().del(runtime.locks().lockKey("order:1"));       // another owner's takeover, as Redis sees it
        await().atMost(Duration.ofSeconds(10)).until(() -> Jmx.count("Lock", APP, "orders", "LeasesLost") == 1);
        assertThatThrownBy(handle::close).isInstanceOf(LockLostException.class);

        assertThat(Jmx.count("Lock", APP, "orders", "LeasesLost")).isEqualTo(1);
        assertThat(Jmx.count("Lock", APP, "orders", "Acquired")).isEqualTo(1);
        assertThat(Jmx.count("Lock", APP, "orders", "Released")).isEqualTo(1);
    }

    @Test
    void redisErrorsFailOpenPassesAndTheBreakerAreCountedAndStateChangesLoggedOnce() {
        redis.assumeControllable();
        RateLimitEngine engine = runtime.rateLimits();
        List<LimitCall> both = List.of(new LimitCall(api, "carol", 1), new LimitCall(login, "carol", 1));
        redis.stop();
        for (int i = 0; i < 3; i++) {
            assertThat(engine.admit(both).outcome()).isEqualTo(Admission.Outcome.UNAVAILABLE_ADMITTED);
        }
        runtime.metrics().redis().breakerOpen(true);             // what the gate reports once its breaker opened
        assertThatThrownBy(() -> runtime.locks().lock("order:9", "orders").acquire(LEASE, Duration.ZERO))
                .isInstanceOf(LockNotAcquiredException.class);

        assertThat(Jmx.count("RateLimit", APP, "api", "RedisErrors")).isEqualTo(3);
        assertThat(Jmx.count("RateLimit", APP, "login", "RedisErrors")).isEqualTo(3);
        assertThat(Jmx.count("RateLimit", APP, "api", "FailOpen")).isEqualTo(3);
        assertThat(Jmx.count("RateLimit", APP, "login", "FailOpen")).isEqualTo(3);
        assertThat(Jmx.attribute("RateLimit", APP, "api", "BreakerOpen")).isEqualTo(true);
        assertThat(Jmx.attribute("Redis", APP, null, "BreakerOpen")).isEqualTo(true);
        assertThat(Jmx.attribute("Redis", APP, null, "Reachable")).isEqualTo(false);
        assertThat(Jmx.count("Lock", APP, "orders", "RedisErrors")).isEqualTo(1);
        assertThat(Jmx.count("Lock", APP, "orders", "Acquired")).isZero();

        redis.start();
        runtime.metrics().redis().breakerOpen(false);
        await().atMost(Duration.ofSeconds(5)).ignoreExceptions().until(() -> engine.decide(both).get(0).allowed());
        assertThat(Jmx.attribute("Redis", APP, null, "Reachable")).isEqualTo(true);
        assertThat(Jmx.count("RateLimit", APP, "api", "Allowed")).isEqualTo(1);

        List<String> warnings = logs.records(Level.WARNING, "dev.sluice").stream().map(logs::text)
                .filter(t -> t.contains("(app " + APP + "): Redis")).toList();
        assertThat(warnings).hasSize(2);
        assertThat(warnings.get(0)).contains("does not answer");
        assertThat(warnings.get(1)).contains("answers again");
    }

    @Test
    void closingTheRuntimeUnregistersEveryMBean() {
        runtime.rateLimits().decide(api, "dave", 1);
        runtime.locks().lock("x").acquire(LEASE, Duration.ZERO).close();
        assertThat(Jmx.names(APP)).isNotEmpty();

        runtime.close();

        assertThat(Jmx.names(APP)).isEmpty();
        assertThat(Jmx.names(APP + "-2")).isEmpty();
    }

    @Test
    void aSecondApplicationWithTheSameIdGetsItsOwnMBeans() {
        SluiceRuntime other = SluiceRuntime.start(runtime.config(), APP, null);
        try {
            assertThat(other.metrics().app()).isEqualTo(APP + "-2");
            other.rateLimits().decide(api, "erin", 1);
            assertThat(Jmx.count("RateLimit", APP + "-2", "api", "Allowed")).isEqualTo(1);
            assertThat(Jmx.count("RateLimit", APP, "api", "Allowed")).isZero();
        } finally {
            other.close();
        }
        assertThat(Jmx.names(APP + "-2")).isEmpty();
        assertThat(Jmx.names(APP)).isNotEmpty();
    }
}
