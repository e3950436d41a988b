package dev.sluice.filter;

import dev.sluice.test.RateLimitAssertions;
import dev.sluice.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static dev.sluice.filter.Descriptors.contextParams;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The filter in a real Jetty against a real Redis ({@link RedisServer}): what reaches Redis, what does not,
 * and what happens while Redis is stopped or hangs.
 */
class RateLimitFilterRedisIT {

    @RegisterExtension
    static final RedisServer REDIS = RedisServer.standalone();

    /** Short, so the failure tests stay fast; the bounds below are expressed in it. */
    private static final Duration TIMEOUT = Duration.ofMillis(500);

    @TempDir
    Path root;

    private WebApp app;

    @BeforeEach
    void resetResource() {
        ProtectedServlet.reset();
    }

    @AfterEach
    void stop() throws Exception {
        if (app != null) {
            app.close();
        }
    }

    private void start(String... more) throws Exception {
        List<String> params = new ArrayList<>(List.of(
                "sluice.redis.uri", REDIS.uri(),
                "sluice.redis.timeout", TIMEOUT.toMillis() + "ms",
                "sluice.limit.login.rate", "5/1m",
                "sluice.limit.login.paths", "/login"));
        params.addAll(List.of(more));
        app = WebApp.start(root, contextParams(params.toArray(String[]::new)), true);
    }

    private List<String> keys() {
        List<String> keys = new ArrayList<>();
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            ScanResult<String> page = REDIS.admin().scan(cursor, new ScanParams().count(1000));
            keys.addAll(page.getResult());
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        return keys;
    }

    /**
     * Calls per command since the last reset, without the fixture's own INFO, CONFIG RESETSTAT and PING (its
     * admin connection is tested on borrow; the application's pool never pings per request).
     */
    private Map<String, Long> commandsSinceReset() {
        Map<String, Long> calls = new TreeMap<>();
        for (String line : REDIS.admin().info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_")) {
                String name = line.substring("cmdstat_".length(), line.indexOf(':'));
                long count = Long.parseLong(line.replaceFirst("^cmdstat_[^:]+:calls=(\\d+),.*$", "$1"));
                if (!List.of("info", "config|resetstat", "ping").contains(name)) {
                    calls.put(name, count);
                }
            }
        }
        return calls;
    }

    private static long millisOf(ThrowingCall call) throws Exception {
        long start = System.nanoTime();
        call.run();
        return (System.nanoTime() - start) / 1_000_000;
    }

    @FunctionalInterface
    private interface ThrowingCall {
        void run() throws Exception;
    }

    @Test
    void deniesTheSixthRequestOfFivePerMinuteInRedis() throws Exception {
        start();
        for (int i = 0; i < 5; i++) {
            RateLimitAssertions.assertAllowed(app.get("/login"), "login", 5, 60);
        }
        RateLimitAssertions.assertTooManyRequests(app.get("/login"), "login", 5, 60);
        assertThat(keys()).containsExactly("sluice:rl:{login:127.0.0.1}");
        assertThat(ProtectedServlet.INVOCATIONS).hasValue(5);
    }

    @Test
    void decidesEveryMatchingPolicyInOneScriptCall() throws Exception {
        start("sluice.limit.api.rate", "100/1m", "sluice.limit.api.paths", "/login",
                "sluice.limit.burst.rate", "10/1s,1000/1h", "sluice.limit.burst.paths", "*.do,/login");
        app.get("/login");
        REDIS.resetStats();
        RateLimitAssertions.assertAllowed(app.get("/login"), "login", 5, 60);
        assertThat(commandsSinceReset()).containsEntry("evalsha", 1L).doesNotContainKeys("eval", "script|load");
        assertThat(keys()).containsExactlyInAnyOrder("sluice:rl:{login:127.0.0.1}", "sluice:rl:{api:127.0.0.1}",
                "sluice:rl:{burst:127.0.0.1}", "sluice:rl:{burst:127.0.0.1}:1");
    }

    @Test
    void requestsThatMatchNoPolicyCauseNoRedisCall() throws Exception {
        start("sluice.limit.login.methods", "POST");
        app.send("POST", "/login");
        REDIS.resetStats();
        for (int i = 0; i < 20; i++) {
            assertThat(app.get("/other").statusCode()).isEqualTo(200);
            assertThat(app.get("/login").statusCode()).as("GET is not limited").isEqualTo(200);
            assertThat(app.get("/login/more").statusCode()).isEqualTo(200);
        }
        assertThat(commandsSinceReset()).isEmpty();
    }

    @Test
    void hashesHostileKeyValuesSoNoKeyGrowsBeyond200Bytes() throws Exception {
        start("sluice.limit.user.rate", "5/1m", "sluice.limit.user.paths", "/user",
                "sluice.limit.user.key", "header:X-User",
                "sluice.limit.tenant.rate", "5/1m", "sluice.limit.tenant.paths", "/tenant",
                "sluice.limit.tenant.key", "query:t",
                "sluice.limit.page.rate", "5/1m", "sluice.limit.page.paths", "/pages/*",
                "sluice.limit.page.key", "path");
        for (String value : List.of("x".repeat(10 * 1024), "caf\u00e9\u00ff", "{slot} *?[]\\", "a b")) {
            for (int i = 0; i < 6; i++) {
                app.get("/user", "X-User", value);
            }
            RateLimitAssertions.assertTooManyRequests(app.get("/user", "X-User", value), "user", 5, 60);
        }
        for (String query : List.of("%0D%0ASET%20x%201%0D%0A", "%E2%9C%93%F0%9F%98%80", "%7D%7B", "y".repeat(4000))) {
            app.get("/tenant?t=" + query);
        }
        app.get("/pages/" + "p".repeat(3000));
        app.get("/pages/%7B%7D%20%E2%9C%93");
        List<String> keys = keys();
        assertThat(keys).hasSizeGreaterThanOrEqualTo(10);
        for (String key : keys) {
            assertThat(key.getBytes(StandardCharsets.UTF_8).length).as(key).isLessThanOrEqualTo(200);
            assertThat(key).as("one hash tag, no request data outside the safe alphabet")
                    .matches("sluice:rl:\\{[A-Za-z0-9_-]+:[A-Za-z0-9._:@/#-]+\\}(:[0-9]+)?");
        }
    }

    @Test
    void failsOpenWithinTheTimeoutWhileRedisIsStopped() throws Exception {
        start("sluice.on-redis-failure", "allow");
        RateLimitAssertions.assertAllowed(app.get("/login"), "login", 5, 60);
        REDIS.stop();
        for (int i = 0; i < 10; i++) {
            long millis = millisOf(() -> {
                HttpResponse<String> response = app.get("/login");
                assertThat(response.statusCode()).isEqualTo(200);
                RateLimitAssertions.assertNoRateLimitHeaders(response);
            });
            assertThat(millis).isLessThan(TIMEOUT.toMillis());
        }
        assertThat(ProtectedServlet.INVOCATIONS).hasValue(11);
    }

    @Test
    void failsClosedWith503WithinTheTimeoutWhileRedisIsStopped() throws Exception {
        start("sluice.on-redis-failure", "deny");
        RateLimitAssertions.assertAllowed(app.get("/login"), "login", 5, 60);
        REDIS.stop();
        for (int i = 0; i < 10; i++) {
            long millis = millisOf(() -> RateLimitAssertions.assertServiceUnavailable(app.get("/login")));
            assertThat(millis).isLessThan(TIMEOUT.toMillis());
        }
        assertThat(ProtectedServlet.INVOCATIONS).hasValue(1);
        assertThat(app.get("/other").statusCode()).as("unmatched requests are unaffected").isEqualTo(200);
    }

    @Test
    void stopsWaitingOnAHungRedisOnceTheBreakerOpens() throws Exception {
        start("sluice.on-redis-failure", "deny");
        RateLimitAssertions.assertAllowed(app.get("/login"), "login", 5, 60);
        REDIS.pause();
        try {
            long firstMillis = millisOf(() -> RateLimitAssertions.assertServiceUnavailable(app.get("/login")));
            assertThat(firstMillis).as("a hung Redis costs the timeout, and no more")
                    .isGreaterThanOrEqualTo(TIMEOUT.toMillis() / 2).isLessThan(TIMEOUT.toMillis() * 2);
            // The breaker opens after three consecutive failures; from then on nobody waits.
            app.get("/login");
            app.get("/login");
            for (int i = 0; i < 10; i++) {
                long millis = millisOf(() -> RateLimitAssertions.assertServiceUnavailable(app.get("/login")));
                assertThat(millis).isLessThan(TIMEOUT.toMillis() / 2);
            }
        } finally {
            REDIS.resume();
        }
    }

    @Test
    void resumesLimitingWithinTwoSecondsOfARestart() throws Exception {
        start("sluice.on-redis-failure", "allow");
        RateLimitAssertions.assertAllowed(app.get("/login"), "login", 5, 60);
        REDIS.stop();
        for (int i = 0; i < 5; i++) {
            RateLimitAssertions.assertNoRateLimitHeaders(app.get("/login"));
        }
        REDIS.start();
        long restarted = System.nanoTime();
        await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(50))
                .until(() -> app.get("/login").headers().firstValue("RateLimit").isPresent());
        assertThat(Duration.ofNanos(System.nanoTime() - restarted)).isLessThan(Duration.ofSeconds(2));
        for (int i = 0; i < 5; i++) {
            app.get("/login");
        }
        RateLimitAssertions.assertTooManyRequests(app.get("/login"), "login", 5, 60);
    }
}
