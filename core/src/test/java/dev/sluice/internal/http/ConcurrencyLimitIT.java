package dev.sluice.internal.http;

import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.HeaderMode;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.runtime.SluiceRuntime;
import dev.sluice.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.resps.Tuple;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.awaitility.Awaitility.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Concurrency limits ({@code sluice.limit.<policy>.concurrency}) decided by the gate against a real Redis: N
 * requests of a key in flight, the next refused with its headers and body, permits back when a response
 * completes, one round trip before a request and one after, and the all-or-nothing rule with a rate.
 */
class ConcurrencyLimitIT {

    @RegisterExtension
    static RedisServer redis = RedisServer.standalone();

    private SluiceRuntime runtime;

    @AfterEach
    void stop() {
        if (runtime != null) {
            runtime.close();
        }
    }

    private RateLimitGate gate(String... keyValues) {
        Map<String, String> values = new HashMap<>();
        values.put("sluice.redis.uri", redis.uri());
        for (int i = 0; i < keyValues.length; i += 2) {
            values.put(keyValues[i], keyValues[i + 1]);
        }
        SluiceConfig config = SluiceConfigLoader.load(ConfigSources.of(values));
        runtime = SluiceRuntime.start(config);
        return RateLimitGate.of(runtime, HeaderMode.IETF);
    }

    private Verdict request(RateLimitGate gate, String client, String... policies) {
        List<RateLimitGate.Policy> candidates = new ArrayList<>();
        for (String p : policies) {
            candidates.add(RateLimitGate.Policy.of(runtime.config().policy(p).orElseThrow(), false));
        }
        return gate.decide(TestRequest.get("/reports").from(client), candidates, null);
    }

    private static Map<String, String> headers(Verdict verdict) {
        Map<String, String> out = new HashMap<>();
        verdict.headers().forEach(h -> out.put(h.name(), h.value()));
        return out;
    }

    private long held(String policy, String client) {
        return redis.admin().zcard(runtime.rateLimits().permitKey(policy, client));
    }

    @Test
    void nRequestsRunAtOnceAndTheNextIsRefusedWithTheHeaders() {
        RateLimitGate gate = gate("sluice.limit.reports.concurrency", "2", "sluice.limit.reports.paths", "/reports");

        Verdict first = request(gate, "203.0.113.9", "reports");
        Verdict second = request(gate, "203.0.113.9", "reports");
        Verdict third = request(gate, "203.0.113.9", "reports");

        assertThat(first.admitted()).isTrue();
        assertThat(headers(first)).containsEntry("RateLimit-Policy", "\"reports\";q=2;qu=\"concurrent-requests\"")
                .containsEntry("RateLimit", "\"reports\";r=1;t=0");
        assertThat(second.admitted()).isTrue();
        assertThat(third.status()).isEqualTo(429);
        assertThat(headers(third)).containsEntry("Retry-After", "1")
                .containsEntry("RateLimit-Policy", "\"reports\";q=2;qu=\"concurrent-requests\"")
                .containsEntry("RateLimit", "\"reports\";r=0;t=1");
        assertThat(third.problem().toJson()).contains("\"status\":429", "\"policy\":\"reports\"",
                "Concurrency limit 'reports' reached (2 requests in flight); retry after 1 second.");
        assertThat(held("reports", "203.0.113.9")).isEqualTo(2);
        assertThat(request(gate, "198.51.100.4", "reports").admitted()).as("another key has permits of its own").isTrue();
    }

    @Test
    void aCompletedResponseGivesItsPermitBackAtOnce() {
        RateLimitGate gate = gate("sluice.limit.reports.concurrency", "1", "sluice.limit.reports.paths", "/reports");
        Verdict first = request(gate, "203.0.113.9", "reports");
        assertThat(request(gate, "203.0.113.9", "reports").status()).isEqualTo(429);

        first.afterResponse().completed(200);

        assertThat(held("reports", "203.0.113.9")).isZero();
        Verdict next = request(gate, "203.0.113.9", "reports");
        assertThat(next.admitted()).as("a refusal by a concurrency limit is not remembered by the deny cache").isTrue();
        next.afterResponse().completed(500);
        assertThat(held("reports", "203.0.113.9")).isZero();
    }

    @Test
    void oneRoundTripBeforeARequestAndOneAfterForAllItsPolicies() {
        RateLimitGate gate = gate("sluice.limit.api.rate", "100/1m", "sluice.limit.api.paths", "/reports",
                "sluice.limit.reports.concurrency", "3", "sluice.limit.reports.paths", "/reports",
                "sluice.limit.per-user.concurrency", "5", "sluice.limit.per-user.rate", "10/1s",
                "sluice.limit.per-user.paths", "/reports");
        request(gate, "192.0.2.1", "api").afterResponse().completed(200);
        redis.resetStats();

        Verdict verdict = request(gate, "203.0.113.9", "api", "reports", "per-user");
        assertThat(verdict.admitted()).isTrue();
        assertThat(redis.commandCount("evalsha")).as("calls before the request").isEqualTo(1);
        verdict.afterResponse().completed(200);
        assertThat(redis.commandCount("evalsha")).as("calls before and after").isEqualTo(2);
        assertThat(held("reports", "203.0.113.9") + held("per-user", "203.0.113.9")).isZero();
    }

    @Test
    void aRequestRefusedByTheConcurrencyLimitTakesNoTokenAndOneRefusedByTheRateNoPermit() {
        RateLimitGate gate = gate("sluice.limit.mixed.rate", "2/1h", "sluice.limit.mixed.concurrency", "1",
                "sluice.limit.mixed.paths", "/reports");
        Verdict first = request(gate, "203.0.113.9", "mixed");
        assertThat(first.admitted()).isTrue();

        Verdict noPermit = request(gate, "203.0.113.9", "mixed");
        assertThat(noPermit.status()).isEqualTo(429);
        assertThat(headers(noPermit)).containsEntry("RateLimit-Policy", "\"mixed\";q=1;qu=\"concurrent-requests\"");
        first.afterResponse().completed(200);

        Verdict second = request(gate, "203.0.113.9", "mixed");
        assertThat(second.admitted()).as("the refused request took no token").isTrue();
        assertThat(headers(second)).containsEntry("RateLimit-Policy", "\"mixed\";q=2;w=3600");
        second.afterResponse().completed(200);

        Verdict noToken = request(gate, "203.0.113.9", "mixed");
        assertThat(noToken.status()).isEqualTo(429);
        assertThat(headers(noToken)).containsEntry("RateLimit-Policy", "\"mixed\";q=2;w=3600");
        assertThat(held("mixed", "203.0.113.9")).as("the request the rate refused took no permit").isZero();
        assertThat(runtime.metrics().policy("mixed").allowedCount()).as("each request counted once").isEqualTo(2);
        assertThat(runtime.metrics().policy("mixed").deniedCount()).isEqualTo(2);
    }

    @Test
    void aShadowedConcurrencyLimitNeverRefusesAndTakesOnlyFreePermits() {
        RateLimitGate gate = gate("sluice.limit.reports.concurrency", "1", "sluice.limit.reports.mode", "shadow",
                "sluice.limit.reports.paths", "/reports");
        Verdict first = request(gate, "203.0.113.9", "reports");
        Verdict second = request(gate, "203.0.113.9", "reports");

        assertThat(first.admitted()).isTrue();
        assertThat(second.admitted()).isTrue();
        assertThat(first.headers()).isEmpty();
        assertThat(held("reports", "203.0.113.9")).isEqualTo(1);
        second.afterResponse().completed(200);
        assertThat(held("reports", "203.0.113.9")).as("the second request held nothing to return").isEqualTo(1);
        first.afterResponse().completed(200);
        assertThat(held("reports", "203.0.113.9")).isZero();
    }

    @Test
    void aPermitIsRenewedWhileItsRequestRuns() {
        RateLimitGate gate = gate("sluice.limit.reports.concurrency", "1", "sluice.limit.reports.paths", "/reports",
                "sluice.limit.reports.concurrency-lease", "300ms");
        Verdict running = request(gate, "203.0.113.9", "reports");
        String key = runtime.rateLimits().permitKey("reports", "203.0.113.9");
        double firstExpiry = redis.admin().zrangeWithScores(key, 0, 0).get(0).getScore();

        // Poll the Redis clock until three leases have passed since the permit was taken.
        await().atMost(Duration.ofSeconds(30)).pollInterval(POLL).until(() -> redisMillis() >= firstExpiry + 600);
        List<Tuple> permits = redis.admin().zrangeWithScores(key, 0, -1);
        assertThat(permits).hasSize(1);
        assertThat(permits.get(0).getScore()).as("renewed beyond the first lease").isGreaterThan(redisMillis());
        assertThat(request(gate, "203.0.113.9", "reports").status()).isEqualTo(429);
        running.afterResponse().completed(200);
        assertThat(request(gate, "203.0.113.9", "reports").admitted()).isTrue();
    }

    /** How often the tests poll the Redis clock. */
    static final Duration POLL = Duration.ofMillis(20);

    private long redisMillis() {
        return (Long) redis.admin().eval("local t = redis.call('TIME') return t[1] * 1000 + math.floor(t[2] / 1000)");
    }
}
