package dev.sluice.filter;

import dev.sluice.test.RateLimitAssertions;
import dev.sluice.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static dev.sluice.filter.Descriptors.contextParams;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Shadowed policies and policies that count only some response statuses, in a real Jetty against a real
 * Redis: what the client sees, what Redis holds, how many script calls a request costs, and the counts in JMX.
 */
class ShadowAndCountFilterIT {

    @RegisterExtension
    static final RedisServer REDIS = RedisServer.standalone();

    private static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();

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

    private void start(String... params) throws Exception {
        List<String> all = new ArrayList<>(List.of("sluice.redis.uri", REDIS.uri()));
        all.addAll(List.of(params));
        app = WebApp.start(root, contextParams(all.toArray(String[]::new)), true);
    }

    /** An attribute of the policy's RateLimit MBean (the one application deployed in this JVM now). */
    private static long jmx(String policy, String attribute) throws Exception {
        Set<ObjectName> names = JMX.queryNames(new ObjectName("dev.sluice:type=RateLimit,name=" + policy + ",*"), null);
        assertThat(names).hasSize(1);
        return (Long) JMX.getAttribute(names.iterator().next(), attribute);
    }

    private static Set<String> keys() {
        return REDIS.admin().keys("*");
    }

    @Test
    void aShadowedPolicyNeverRefusesSendsNoHeadersAndCountsWouldBeRefusals() throws Exception {
        start("sluice.limit.login.rate", "2/1m", "sluice.limit.login.paths", "/login",
                "sluice.limit.login.mode", "shadow");
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> response = app.get("/login");
            assertThat(response.statusCode()).isEqualTo(200);
            RateLimitAssertions.assertNoRateLimitHeaders(response);
        }
        assertThat(ProtectedServlet.INVOCATIONS).hasValue(5);
        assertThat(jmx("login", "WouldDeny")).isEqualTo(3);
        assertThat(jmx("login", "Allowed")).isEqualTo(2);
        assertThat(jmx("login", "Denied")).isZero();
        assertThat(keys()).as("charged as usual").containsExactly("sluice:rl:{login:127.0.0.1}");
    }

    @Test
    void anEnforcedPolicyDecidesBesideAShadowedOneInOneScriptCallWithItsHeadersAlone() throws Exception {
        start("sluice.limit.login.rate", "3/1m", "sluice.limit.login.paths", "/login",
                "sluice.limit.trial.rate", "1/1m", "sluice.limit.trial.paths", "/login",
                "sluice.limit.trial.mode", "shadow");
        app.get("/login");
        REDIS.resetStats();
        RateLimitAssertions.assertAllowed(app.get("/login"), "login", 3, 60);
        RateLimitAssertions.assertAllowed(app.get("/login"), "login", 3, 60);
        RateLimitAssertions.assertTooManyRequests(app.get("/login"), "login", 3, 60);
        assertThat(REDIS.commandCount("evalsha")).as("one script call per request").isEqualTo(3);
        assertThat(jmx("trial", "WouldDeny")).isEqualTo(3);
        assertThat(jmx("trial", "Denied")).isZero();
        assertThat(jmx("login", "Denied")).isEqualTo(1);
    }

    @Test
    void sluiceModeShadowShadowsEveryPolicy() throws Exception {
        start("sluice.mode", "shadow", "sluice.limit.login.rate", "1/1m", "sluice.limit.login.paths", "/login");
        for (int i = 0; i < 3; i++) {
            assertThat(app.get("/login").statusCode()).isEqualTo(200);
        }
        assertThat(jmx("login", "WouldDeny")).isEqualTo(2);
    }

    private void startLogin(String count) throws Exception {
        start("sluice.limit.login.rate", "3/1m", "sluice.limit.login.paths", "/login",
                "sluice.limit.login.count", count);
    }

    @Test
    void successfulLoginsNeverUseTheBucketAndTheFourthFailureIsRefusedEvenWithTheRightPassword() throws Exception {
        startLogin("401");
        REDIS.resetStats();
        for (int i = 0; i < 10; i++) {
            RateLimitAssertions.assertAllowed(app.get("/login"), "login", 3, 60);
        }
        assertThat(keys()).as("no bucket was written").isEmpty();
        assertThat(REDIS.commandCount("evalsha")).as("one check each, no charge").isEqualTo(10);

        for (int i = 0; i < 3; i++) {
            assertThat(app.get("/login?status=401").statusCode()).isEqualTo(401);
        }
        assertThat(REDIS.commandCount("evalsha")).as("a check and a charge per failure").isEqualTo(16);

        HttpResponse<String> rightPassword = app.get("/login");
        RateLimitAssertions.assertTooManyRequests(rightPassword, "login", 3, 60);
        assertThat(ProtectedServlet.INVOCATIONS).hasValue(13);
        assertThat(jmx("login", "ChargedAfterResponse")).isEqualTo(3);
        assertThat(jmx("login", "Denied")).isEqualTo(1);
    }

    @Test
    void anAsynchronousResponseIsChargedWithTheStatusItsThreadSetWhenItCompletes() throws Exception {
        startLogin("401");
        for (int i = 0; i < 10; i++) {
            assertThat(app.get("/login?async=thread").statusCode()).isEqualTo(200);
        }
        for (int i = 0; i < 3; i++) {
            assertThat(app.get("/login?async=thread&status=401").statusCode()).isEqualTo(401);
        }
        // the charge runs as the asynchronous cycle ends, which may be just after the client has its answer
        await().until(() -> jmx("login", "ChargedAfterResponse") == 3);
        RateLimitAssertions.assertTooManyRequests(app.get("/login?async=thread"), "login", 3, 60);
    }

    @Test
    void anAsynchronousRequestDispatchedAgainIsChargedWithTheStatusOfItsLastDispatch() throws Exception {
        startLogin("401");
        for (int i = 0; i < 3; i++) {
            assertThat(app.get("/login?dispatch=401").statusCode()).isEqualTo(401);
        }
        await().until(() -> jmx("login", "ChargedAfterResponse") == 3);
        RateLimitAssertions.assertTooManyRequests(app.get("/login"), "login", 3, 60);
    }

    @Test
    void aResponseCommittedEarlyIsChargedWithItsStatus() throws Exception {
        startLogin("401");
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> response = app.get("/login?status=401&flush");
            assertThat(response.statusCode()).isEqualTo(401);
            assertThat(response.body()).isEqualTo("committed early");
        }
        RateLimitAssertions.assertTooManyRequests(app.get("/login"), "login", 3, 60);
    }

    @Test
    void anExceptionInTheResourceIsChargedAsA500() throws Exception {
        startLogin("5xx");
        for (int i = 0; i < 3; i++) {
            assertThat(app.get("/login?throw").statusCode()).isEqualTo(500);
        }
        RateLimitAssertions.assertTooManyRequests(app.get("/login"), "login", 3, 60);
        assertThat(jmx("login", "ChargedAfterResponse")).isEqualTo(3);
    }

    @Test
    void anExceptionAfterTheResponseWasCommittedIsChargedWithTheStatusSent() throws Exception {
        startLogin("5xx");
        for (int i = 0; i < 5; i++) {
            try {
                app.get("/login?flush&throw");
            } catch (java.io.IOException aborted) {
                // the container cuts a committed response short when the resource fails after committing it
            }
        }
        assertThat(ProtectedServlet.INVOCATIONS).hasValue(5);
        assertThat(jmx("login", "ChargedAfterResponse")).as("200 was sent, and 200 is not counted").isZero();
        RateLimitAssertions.assertAllowed(app.get("/login"), "login", 3, 60);
    }
}
