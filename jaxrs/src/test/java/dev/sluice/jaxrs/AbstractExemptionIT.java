package dev.sluice.jaxrs;

import dev.sluice.test.RedisServer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

import static dev.sluice.test.RateLimitAssertions.assertAllowed;
import static dev.sluice.test.RateLimitAssertions.assertNoRateLimitHeaders;
import static dev.sluice.test.RateLimitAssertions.assertTooManyRequests;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code sluice.limit.<policy>.exempt} on {@code @RateLimited} resources, run unchanged on every runtime (one
 * subclass each) against a real Redis. Roles and principals are read from the request's {@code SecurityContext}
 * when Sluice's filter runs: an application filter that sets it earlier (pre-matching) counts, one that runs
 * after Sluice's does not; on a servlet container, the container's own authentication counts too.
 */
abstract class AbstractExemptionIT {

    @RegisterExtension
    static final RedisServer REDIS = RedisServer.standalone();

    private static final long LIMIT = 2;
    private static final long HOUR = 3600;

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private JaxrsContainer.Deployment deployment;

    /** The runtime under test. */
    abstract JaxrsContainer container();

    @BeforeEach
    void deploy() throws Exception {
        deployment = container().deploy(new TestApplication(ExemptResources.Reports.class,
                ExemptResources.Members.class, ExemptResources.EarlyAuthentication.class,
                ExemptResources.LateAuthentication.class, RateLimitFeature.class)
                .property("sluice.redis.uri", REDIS.uri())
                .property("sluice.trusted-proxies", "127.0.0.1")
                .property("sluice.limit.exempt-reports.exempt", "role:ops, principal:monitor, 203.0.113.0/24")
                .property("sluice.limit.exempt-members.exempt", "role:user"));
    }

    @AfterEach
    void undeploy() {
        deployment.close();
    }

    private HttpResponse<String> get(String path, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(deployment.base() + path));
        if (headers.length > 0) {
            request.headers(headers);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String basic(String user) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + JaxrsContainer.PASSWORD)
                .getBytes(StandardCharsets.UTF_8));
    }

    /** The bucket every anonymous request of this test shares is full: nothing before charged it. */
    private void assertBucketFullThenSpent(String... headers) throws Exception {
        assertThat(assertAllowed(get("exempt-reports", headers), "exempt-reports", LIMIT, HOUR).remaining())
                .isEqualTo(LIMIT - 1);
        assertThat(assertAllowed(get("exempt-reports", headers), "exempt-reports", LIMIT, HOUR).remaining()).isZero();
        assertTooManyRequests(get("exempt-reports", headers), "exempt-reports", LIMIT, HOUR);
    }

    @Test
    void aRoleOrPrincipalSetByAnEarlierAuthenticationFilterIsNeverChargedNorLimited() throws Exception {
        REDIS.resetStats();
        for (int i = 0; i < LIMIT * 2; i++) {
            HttpResponse<String> ops = get("exempt-reports", "X-Test-User", "robot", "X-Test-Roles", "ops");
            assertThat(ops.body()).isEqualTo("robot ops=true");
            assertNoRateLimitHeaders(ops);
            assertNoRateLimitHeaders(get("exempt-reports", "X-Test-User", "monitor"));
        }
        assertThat(REDIS.commandCount("evalsha") + REDIS.commandCount("eval")).as("Redis never asked").isZero();

        assertBucketFullThenSpent();
        assertThat(get("exempt-reports", "X-Test-User", "robot", "X-Test-Roles", "ops").statusCode())
                .as("exempt with the bucket spent").isEqualTo(200);
    }

    @Test
    void aUserWithoutTheRoleOrWithoutASecurityContextIsLimited() throws Exception {
        assertBucketFullThenSpent("X-Test-User", "carol", "X-Test-Roles", "user");
        assertTooManyRequests(get("exempt-reports"), "exempt-reports", LIMIT, HOUR);
    }

    @Test
    void anAuthenticationFilterThatRunsAfterSluicesIsTooLateToExempt() throws Exception {
        HttpResponse<String> late = get("exempt-reports", "X-Late-User", "robot", "X-Late-Roles", "ops");
        assertThat(late.body()).as("the resource sees the role").isEqualTo("robot ops=true");
        assertThat(assertAllowed(late, "exempt-reports", LIMIT, HOUR).remaining()).as("charged").isEqualTo(LIMIT - 1);
    }

    @Test
    void theRuntimesOwnAuthenticationCounts() throws Exception {
        for (int i = 0; i < LIMIT * 2; i++) {
            assertNoRateLimitHeaders(get("exempt-members", "Authorization", basic("alice")));
        }
        assertThat(assertAllowed(get("exempt-members"), "exempt-members", LIMIT, HOUR).remaining())
                .as("anonymous: in no role, and the bucket untouched").isEqualTo(LIMIT - 1);
    }

    @Test
    void anExemptNetworkMatchesTheClientBehindATrustedProxyWhereThePeerIsKnown() throws Exception {
        for (int i = 0; i < LIMIT * 2; i++) {
            HttpResponse<String> response = get("exempt-reports", "X-Forwarded-For", "203.0.113.9");
            if (!container().servlet()) {
                // no servlet request, no peer address: the proxy cannot be recognised, so no network matches
                assertThat(response.headers().firstValue("RateLimit")).isPresent();
                return;
            }
            assertNoRateLimitHeaders(response);
        }
        assertBucketFullThenSpent("X-Forwarded-For", "198.51.100.1");
    }
}
