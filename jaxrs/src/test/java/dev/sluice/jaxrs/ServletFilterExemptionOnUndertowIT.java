package dev.sluice.jaxrs;

import dev.sluice.filter.RateLimitFilter;
import dev.sluice.test.RedisServer;

import io.undertow.Undertow;
import io.undertow.security.api.AuthenticationMode;
import io.undertow.security.idm.Account;
import io.undertow.security.idm.Credential;
import io.undertow.security.idm.IdentityManager;
import io.undertow.security.idm.PasswordCredential;
import io.undertow.servlet.Servlets;
import io.undertow.servlet.api.DeploymentInfo;
import io.undertow.servlet.api.DeploymentManager;
import io.undertow.servlet.api.LoginConfig;
import io.undertow.servlet.api.SecurityConstraint;
import io.undertow.servlet.api.WebResourceCollection;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.Base64;
import java.util.Map;
import java.util.Set;

import static dev.sluice.test.RateLimitAssertions.assertAllowed;
import static dev.sluice.test.RateLimitAssertions.assertNoRateLimitHeaders;
import static dev.sluice.test.RateLimitAssertions.assertTooManyRequests;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Exemptions by role and principal in the servlet filter on Undertow, the servlet engine of WildFly, with the
 * container's HTTP BASIC authentication against an in-memory identity manager. The filter asks
 * {@code isUserInRole} and {@code getUserPrincipal} of the request as the container left it: a URL under a
 * security constraint is authenticated before any filter runs; on any other URL, Undertow in its default
 * {@code PRO_ACTIVE} mode (WildFly's {@code proactive-authentication=true}) still authenticates credentials the
 * client sent, while {@code CONSTRAINT_DRIVEN} (WildFly's {@code proactive-authentication=false}, and Tomcat
 * without {@code preemptiveAuthentication}) leaves the request anonymous, so it is in no role.
 */
class ServletFilterExemptionOnUndertowIT {

    @RegisterExtension
    static final RedisServer REDIS = RedisServer.standalone();

    private static final long LIMIT = 2;
    private static final long HOUR = 3600;
    /** Users of the identity manager (password {@code secret}) and their roles. */
    private static final Map<String, Set<String>> USERS = Map.of(
            "alice", Set.of("user"), "ops-bot", Set.of("user", "ops"), "monitor", Set.of("user"));

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private DeploymentManager manager;
    private Undertow server;
    private URI base;

    private void deploy(AuthenticationMode mode, String... initParams) throws ServletException {
        DeploymentInfo info = Servlets.deployment()
                .setClassLoader(ServletFilterExemptionOnUndertowIT.class.getClassLoader())
                .setContextPath("/")
                .setDeploymentName("exempt")
                .addServlet(Servlets.servlet("pages", WhoAmI.class).addMapping("/"))
                .addFilter(Servlets.filter("sluice", RateLimitFilter.class))
                .addFilterUrlMapping("sluice", "/*", DispatcherType.REQUEST)
                .addSecurityConstraint(new SecurityConstraint()
                        .addWebResourceCollection(new WebResourceCollection().addUrlPattern("/secure/*"))
                        .addRoleAllowed("user"))
                .setLoginConfig(new LoginConfig("BASIC", "sluice"))
                .setAuthenticationMode(mode)
                .setIdentityManager(new Users())
                .addInitParameter("sluice.redis.uri", REDIS.uri())
                .addInitParameter("sluice.limit.staff.rate", LIMIT + "/1h")
                .addInitParameter("sluice.limit.staff.paths", "/secure/*,/open/*")
                .addInitParameter("sluice.limit.staff.exempt", "role:ops, principal:monitor");
        for (int i = 0; i < initParams.length; i += 2) {
            info.addInitParameter(initParams[i], initParams[i + 1]);
        }
        manager = Servlets.newContainer().addDeployment(info);
        manager.deploy();
        server = Undertow.builder().addHttpListener(0, "127.0.0.1").setHandler(manager.start()).build();
        server.start();
        base = URI.create("http://127.0.0.1:"
                + ((InetSocketAddress) server.getListenerInfo().get(0).getAddress()).getPort() + "/");
    }

    @AfterEach
    void undeploy() throws ServletException {
        if (manager != null) {
            manager.stop();
            manager.undeploy();
            server.stop();
        }
    }

    private HttpResponse<String> get(String path, String user) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path));
        if (user != null) {
            request.header("Authorization", "Basic " + Base64.getEncoder()
                    .encodeToString((user + ":secret").getBytes(StandardCharsets.UTF_8)));
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> forwarded(String path, String... lines) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path));
        for (String line : lines) {
            request.header("Forwarded", line);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aMalformedForwardedHeaderNeverEarnsTheTrustedProxysExemption() throws Exception {
        deploy(AuthenticationMode.PRO_ACTIVE, "sluice.trusted-proxies", "127.0.0.1",
                "sluice.forwarding-header", "forwarded", "sluice.limit.staff.exempt", "127.0.0.0/8");
        // the client's unterminated quote, then the element its proxy appended
        assertThat(assertAllowed(forwarded("open/page", "for=\"x", "for=198.51.100.1"), "staff", LIMIT, HOUR)
                .remaining()).isEqualTo(LIMIT - 1);
        assertThat(REDIS.admin().exists("sluice:rl:{staff:198.51.100.1}")).isTrue();
        // a proxy that names no client: keyed by the proxy, not exempt by its network
        assertThat(assertAllowed(forwarded("open/page", "for=unknown"), "staff", LIMIT, HOUR).remaining())
                .isEqualTo(LIMIT - 1);
        assertThat(bucketExists()).isTrue();
        assertNoRateLimitHeaders(get("open/page", null));
    }

    private static boolean bucketExists() {
        return REDIS.admin().exists("sluice:rl:{staff:127.0.0.1}");
    }

    @Test
    void aRoleOrPrincipalAuthenticatedByASecurityConstraintIsNeverChargedNorLimited() throws Exception {
        deploy(AuthenticationMode.PRO_ACTIVE);
        for (int i = 0; i < LIMIT * 2; i++) {
            HttpResponse<String> ops = get("secure/report", "ops-bot");
            assertThat(ops.body()).isEqualTo("ops-bot");
            assertNoRateLimitHeaders(ops);
            assertNoRateLimitHeaders(get("secure/report", "monitor"));
        }
        assertThat(bucketExists()).as("Redis untouched").isFalse();

        // alice is in neither list; she shares the client address, whose bucket is full
        assertThat(assertAllowed(get("secure/report", "alice"), "staff", LIMIT, HOUR).remaining()).isEqualTo(LIMIT - 1);
        assertThat(assertAllowed(get("secure/report", "alice"), "staff", LIMIT, HOUR).remaining()).isZero();
        assertTooManyRequests(get("secure/report", "alice"), "staff", LIMIT, HOUR);
        assertThat(get("secure/report", "ops-bot").statusCode()).as("exempt with the bucket spent").isEqualTo(200);
    }

    @Test
    void proactiveAuthenticationMakesCredentialsCountOnAnUnconstrainedUrl() throws Exception {
        deploy(AuthenticationMode.PRO_ACTIVE);
        for (int i = 0; i < LIMIT * 2; i++) {
            HttpResponse<String> ops = get("open/page", "ops-bot");
            assertThat(ops.body()).isEqualTo("ops-bot");
            assertNoRateLimitHeaders(ops);
        }
        assertThat(bucketExists()).isFalse();
        assertThat(assertAllowed(get("open/page", null), "staff", LIMIT, HOUR).remaining())
                .as("an anonymous request is in no role").isEqualTo(LIMIT - 1);
    }

    @Test
    void constraintDrivenAuthenticationLeavesAnUnconstrainedRequestAnonymousAndCharged() throws Exception {
        deploy(AuthenticationMode.CONSTRAINT_DRIVEN);
        HttpResponse<String> open = get("open/page", "ops-bot");
        assertThat(open.body()).as("credentials not read").isEqualTo("anonymous");
        assertThat(assertAllowed(open, "staff", LIMIT, HOUR).remaining()).isEqualTo(LIMIT - 1);

        assertNoRateLimitHeaders(get("secure/report", "ops-bot"));
        assertThat(assertAllowed(get("open/page", "ops-bot"), "staff", LIMIT, HOUR).remaining()).isZero();
    }

    /** Writes the authenticated user's name, or {@code anonymous}. */
    public static class WhoAmI extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
            Principal user = request.getUserPrincipal();
            response.getWriter().write(user == null ? "anonymous" : user.getName());
        }
    }

    private static final class Users implements IdentityManager {
        @Override
        public Account verify(Account account) {
            return account;
        }

        @Override
        public Account verify(String id, Credential credential) {
            boolean valid = USERS.containsKey(id) && credential instanceof PasswordCredential p
                    && "secret".equals(new String(p.getPassword()));
            return valid ? new User(id) : null;
        }

        @Override
        public Account verify(Credential credential) {
            return null;
        }
    }

    private record User(String name) implements Account {
        private static final long serialVersionUID = 1L;

        @Override
        public Principal getPrincipal() {
            return this::name;
        }

        @Override
        public Set<String> getRoles() {
            return USERS.get(name);
        }
    }
}
