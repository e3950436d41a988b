package dev.sluice.filter;

import dev.sluice.SluiceConfigException;
import dev.sluice.internal.http.ChargedPolicies;
import dev.sluice.test.RateLimitAssertions;
import dev.sluice.test.RateLimitAssertions.RateLimitFields;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static dev.sluice.filter.Descriptors.contextParams;
import static dev.sluice.filter.Descriptors.declaredFilter;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The filter in a real Jetty 12 with a real HTTP client, on the in-process store (no {@code sluice.redis.uri}):
 * both install modes, the responses of the contract, client identity, switches. Redis-specific behaviour is in
 * {@link RateLimitFilterRedisIT}.
 */
class RateLimitFilterIT {

    private static final String[] LOGIN_5_PER_MINUTE = {
        "sluice.limit.login.rate", "5/1m",
        "sluice.limit.login.paths", "/login"
    };

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

    private WebApp fragmentApp(String... contextParams) throws Exception {
        app = WebApp.start(root, contextParams(contextParams), true);
        return app;
    }

    private static String[] with(String[] base, String... more) {
        List<String> all = new ArrayList<>(List.of(base));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    @Test
    void fragmentFromWebInfLibDeniesTheSixthRequestOfFivePerMinute() throws Exception {
        fragmentApp(LOGIN_5_PER_MINUTE);
        for (int i = 0; i < 5; i++) {
            RateLimitFields fields = RateLimitAssertions.assertAllowed(app.get("/login"), "login", 5, 60);
            assertThat(fields.remaining()).isEqualTo(4 - i);
        }
        HttpResponse<String> denied = app.get("/login");
        RateLimitFields fields = RateLimitAssertions.assertTooManyRequests(denied, "login", 5, 60);
        assertThat(fields.remaining()).isZero();
        assertThat(fields.retryAfter()).hasValueSatisfying(s -> assertThat(s).isBetween(1L, 12L));
        assertThat(ProtectedServlet.INVOCATIONS).as("the refused request never reached the resource").hasValue(5);
    }

    @Test
    void webXmlDeclarationWithInitParamsOverridingTheApplicationConfig() throws Exception {
        app = WebApp.start(root, contextParams("sluice.limit.login.rate", "100/1m", "sluice.limit.login.paths", "/other")
                + declaredFilter("sluice", LOGIN_5_PER_MINUTE), false);
        for (int i = 0; i < 5; i++) {
            RateLimitAssertions.assertAllowed(app.get("/login"), "login", 5, 60);
        }
        RateLimitAssertions.assertTooManyRequests(app.get("/login"), "login", 5, 60);
        RateLimitAssertions.assertNoRateLimitHeaders(app.get("/other"));
    }

    @Test
    void retryAfterIsNeverZeroAndNeverEarlierThanTheNextToken() throws Exception {
        fragmentApp("sluice.limit.fast.rate", "1/2s", "sluice.limit.fast.paths", "/fast");
        RateLimitAssertions.assertAllowed(app.get("/fast"), "fast", 1, 2);
        long retryAfter = 0;
        for (int i = 0; i < 20; i++) {
            RateLimitFields denied = RateLimitAssertions.assertTooManyRequests(app.get("/fast"), "fast", 1, 2);
            retryAfter = denied.retryAfter().orElseThrow();
            assertThat(retryAfter).isBetween(1L, 2L);
        }
        // Waiting out Retry-After is the scenario here: the client does exactly what it was told.
        Thread.sleep(retryAfter * 1000);
        RateLimitAssertions.assertAllowed(app.get("/fast"), "fast", 1, 2);
    }

    @Test
    void passesRequestsNoPolicyMatchesUntouched() throws Exception {
        fragmentApp(with(LOGIN_5_PER_MINUTE, "sluice.limit.login.methods", "POST"));
        for (int i = 0; i < 10; i++) {
            HttpResponse<String> other = app.get("/other");
            assertThat(other.statusCode()).isEqualTo(200);
            RateLimitAssertions.assertNoRateLimitHeaders(other);
            RateLimitAssertions.assertNoRateLimitHeaders(app.get("/login"));
        }
        for (int i = 0; i < 5; i++) {
            RateLimitAssertions.assertAllowed(app.send("POST", "/login"), "login", 5, 60);
        }
        RateLimitAssertions.assertTooManyRequests(app.send("POST", "/login"), "login", 5, 60);
    }

    @Test
    void ignoresAForwardedForHeaderFromAnUntrustedPeer() throws Exception {
        fragmentApp(with(LOGIN_5_PER_MINUTE, "sluice.trusted-proxies", "10.0.0.0/8"));
        for (int i = 0; i < 5; i++) {
            RateLimitAssertions.assertAllowed(app.get("/login", "X-Forwarded-For", "203.0.113." + i,
                    "Forwarded", "for=198.51.100." + i), "login", 5, 60);
        }
        RateLimitAssertions.assertTooManyRequests(app.get("/login", "X-Forwarded-For", "203.0.113.99"), "login", 5, 60);
    }

    @Test
    void believesTheForwardedForHeaderOfATrustedProxy() throws Exception {
        fragmentApp(with(LOGIN_5_PER_MINUTE, "sluice.trusted-proxies", "127.0.0.1/32, ::1"));
        for (int i = 0; i < 10; i++) {
            RateLimitAssertions.assertAllowed(app.get("/login", "X-Forwarded-For", "203.0.113." + i), "login", 5, 60);
        }
        for (int i = 0; i < 5; i++) {
            RateLimitAssertions.assertAllowed(app.get("/login", "X-Forwarded-For", "6.6.6.6, 198.51.100.7"), "login", 5, 60);
        }
        RateLimitAssertions.assertTooManyRequests(app.get("/login", "X-Forwarded-For", "7.7.7.7, 198.51.100.7"),
                "login", 5, 60);
        RateLimitAssertions.assertTooManyRequests(app.get("/login", "X-Forwarded-For", "[::ffff:198.51.100.7]:999"),
                "login", 5, 60);
        RateLimitAssertions.assertAllowed(app.get("/login", "X-Forwarded-For", "198.51.100.8"), "login", 5, 60);
    }

    @Test
    void limitsHostileKeyValuesWithoutBreakingThem() throws Exception {
        fragmentApp("sluice.limit.user.rate", "5/1m", "sluice.limit.user.paths", "/user",
                "sluice.limit.user.key", "header:X-User",
                "sluice.limit.tenant.rate", "5/1m", "sluice.limit.tenant.paths", "/tenant",
                "sluice.limit.tenant.key", "query:t");
        String huge = "x".repeat(10 * 1024);
        String latin1 = "caf\u00e9-\u00ff{}*?[]";
        for (String value : List.of(huge, huge + "y", latin1)) {
            for (int i = 0; i < 5; i++) {
                RateLimitAssertions.assertAllowed(app.get("/user", "X-User", value), "user", 5, 60);
            }
            RateLimitAssertions.assertTooManyRequests(app.get("/user", "X-User", value), "user", 5, 60);
        }
        for (String query : List.of("%0D%0AX-Injected:%201", "%E2%9C%93%F0%9F%98%80", "%7Bslot%7D")) {
            for (int i = 0; i < 5; i++) {
                RateLimitAssertions.assertAllowed(app.get("/tenant?t=" + query), "tenant", 5, 60);
            }
            RateLimitAssertions.assertTooManyRequests(app.get("/tenant?t=" + query), "tenant", 5, 60);
        }
    }

    @Test
    void sluiceFilterEnabledFalseSwitchesTheFragmentOff() throws Exception {
        fragmentApp(with(LOGIN_5_PER_MINUTE, "sluice.filter.enabled", "false"));
        for (int i = 0; i < 10; i++) {
            HttpResponse<String> response = app.get("/login");
            assertThat(response.statusCode()).isEqualTo(200);
            RateLimitAssertions.assertNoRateLimitHeaders(response);
        }
    }

    @Test
    void anAbsoluteOrderingWithoutSluiceSwitchesTheFragmentOff() throws Exception {
        app = WebApp.start(root, contextParams(LOGIN_5_PER_MINUTE) + "<absolute-ordering/>", true);
        for (int i = 0; i < 10; i++) {
            assertThat(app.get("/login").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void chargesAPolicyOnceWhenTheFilterIsAlsoDeclaredInWebXml() throws Exception {
        app = WebApp.start(root, contextParams(LOGIN_5_PER_MINUTE) + declaredFilter("limits", LOGIN_5_PER_MINUTE), true);
        for (int i = 0; i < 5; i++) {
            RateLimitFields fields = RateLimitAssertions.assertAllowed(app.get("/login"), "login", 5, 60);
            assertThat(fields.remaining()).isEqualTo(4 - i);
        }
        RateLimitAssertions.assertTooManyRequests(app.get("/login"), "login", 5, 60);
        assertThat(ChargedPolicies.ATTRIBUTE).isEqualTo("dev.sluice.charged-policies");
    }

    @Test
    void writesLegacyHeadersWhenAsked() throws Exception {
        fragmentApp(with(LOGIN_5_PER_MINUTE, "sluice.headers", "legacy"));
        HttpResponse<String> first = app.get("/login");
        assertThat(RateLimitAssertions.assertLegacyHeaders(first, 5)).isEqualTo(4);
        assertThat(first.headers().firstValue("RateLimit")).isEmpty();
        for (int i = 0; i < 4; i++) {
            app.get("/login");
        }
        HttpResponse<String> denied = app.get("/login");
        assertThat(denied.statusCode()).isEqualTo(429);
        RateLimitAssertions.retryAfterSeconds(denied);
        assertThat(RateLimitAssertions.assertLegacyHeaders(denied, 5)).isZero();
        assertThat(Long.parseLong(denied.headers().firstValue("X-RateLimit-Reset").orElseThrow())).isBetween(59L, 60L);
    }

    @Test
    void limitsAsynchronousResources() throws Exception {
        fragmentApp(LOGIN_5_PER_MINUTE);
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> response = app.get("/login?async");
            RateLimitAssertions.assertAllowed(response, "login", 5, 60);
            assertThat(response.body()).isEqualTo("async ok");
        }
        RateLimitAssertions.assertTooManyRequests(app.get("/login?async"), "login", 5, 60);
    }

    @Test
    void admitsExactlyTheLimitUnderConcurrentRequests() throws Exception {
        fragmentApp("sluice.limit.burst.rate", "5/1m", "sluice.limit.burst.paths", "/burst");
        int clients = 16;
        CyclicBarrier start = new CyclicBarrier(clients);
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            List<Future<Integer>> statuses = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                Callable<Integer> call = () -> {
                    start.await();
                    return app.get("/burst").statusCode();
                };
                statuses.add(pool.submit(call));
            }
            int admitted = 0;
            for (Future<Integer> status : statuses) {
                admitted += status.get() == 200 ? 1 : 0;
            }
            assertThat(admitted).isEqualTo(5);
            assertThat(ProtectedServlet.INVOCATIONS).hasValue(5);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aBeanKeyFailsTheDeploymentInAContainerWithoutCdi() {
        assertThatThrownBy(() -> fragmentApp(with(LOGIN_5_PER_MINUTE, "sluice.limit.login.key", "bean:loginKey")))
                .hasStackTraceContaining(SluiceConfigException.class.getName())
                .hasStackTraceContaining("sluice.limit.login.key")
                .hasStackTraceContaining("needs CDI");
    }

    @Test
    void aBadValueFailsTheDeploymentNamingTheKey() {
        assertThatThrownBy(() -> fragmentApp("sluice.limit.login.rate", "ten/s", "sluice.limit.login.paths", "/login"))
                .hasStackTraceContaining(SluiceConfigException.class.getName())
                .hasStackTraceContaining("sluice.limit.login.rate");
    }
}
