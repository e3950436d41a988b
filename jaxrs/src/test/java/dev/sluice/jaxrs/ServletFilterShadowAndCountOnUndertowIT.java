package dev.sluice.jaxrs;

import dev.sluice.filter.RateLimitFilter;
import dev.sluice.test.RedisServer;

import io.undertow.Undertow;
import io.undertow.servlet.Servlets;
import io.undertow.servlet.api.DeploymentInfo;
import io.undertow.servlet.api.DeploymentManager;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import static dev.sluice.test.RateLimitAssertions.assertAllowed;
import static dev.sluice.test.RateLimitAssertions.assertNoRateLimitHeaders;
import static dev.sluice.test.RateLimitAssertions.assertTooManyRequests;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Shadow mode and charging by response status in the servlet filter on Undertow, the servlet engine of
 * WildFly: a login whose failures alone are charged, answered synchronously or from another thread after
 * {@code startAsync}, and a shadowed limit that never refuses.
 */
class ServletFilterShadowAndCountOnUndertowIT {

    @RegisterExtension
    static final RedisServer REDIS = RedisServer.standalone();

    private static final long HOUR = 3600;

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private DeploymentManager manager;
    private Undertow server;
    private URI base;

    @BeforeEach
    void deploy() throws ServletException {
        REDIS.flushAll();
        DeploymentInfo info = Servlets.deployment()
                .setClassLoader(ServletFilterShadowAndCountOnUndertowIT.class.getClassLoader())
                .setContextPath("/")
                .setDeploymentName("shadow-and-count")
                .addServlet(Servlets.servlet("login", Login.class).addMapping("/login"))
                .addServlet(Servlets.servlet("async-login", AsyncLogin.class).addMapping("/async-login")
                        .setAsyncSupported(true))
                .addServlet(Servlets.servlet("trial", Login.class).addMapping("/trial"))
                .addFilter(Servlets.filter("sluice", RateLimitFilter.class).setAsyncSupported(true))
                .addFilterUrlMapping("sluice", "/*", DispatcherType.REQUEST)
                .addInitParameter("sluice.redis.uri", REDIS.uri())
                .addInitParameter("sluice.limit.login.rate", "3/1h")
                .addInitParameter("sluice.limit.login.paths", "/login,/async-login")
                .addInitParameter("sluice.limit.login.count", "401")
                .addInitParameter("sluice.limit.trial.rate", "2/1h")
                .addInitParameter("sluice.limit.trial.paths", "/trial")
                .addInitParameter("sluice.limit.trial.mode", "shadow");
        manager = Servlets.newContainer().addDeployment(info);
        manager.deploy();
        server = Undertow.builder().addHttpListener(0, "127.0.0.1").setHandler(manager.start()).build();
        server.start();
        base = URI.create("http://127.0.0.1:"
                + ((InetSocketAddress) server.getListenerInfo().get(0).getAddress()).getPort() + "/");
    }

    @AfterEach
    void undeploy() throws ServletException {
        manager.stop();
        manager.undeploy();
        server.stop();
    }

    private HttpResponse<String> get(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(base.resolve(path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void successfulLoginsNeverUseTheBucketAndTheFourthAttemptAfterThreeFailuresIsRefused() throws Exception {
        for (int i = 0; i < 5; i++) {
            assertThat(assertAllowed(get("login?password=right"), "login", 3, HOUR).remaining()).isEqualTo(3);
        }
        assertThat(REDIS.admin().exists("sluice:rl:{login:127.0.0.1}")).as("no token taken").isFalse();
        for (int i = 0; i < 3; i++) {
            assertThat(get("login?password=wrong").statusCode()).isEqualTo(401);
        }
        assertTooManyRequests(get("login?password=right"), "login", 3, HOUR);
    }

    @Test
    void anAsynchronousLoginIsChargedWithTheStatusSetOnAnotherThread() throws Exception {
        assertThat(get("async-login?password=right").statusCode()).isEqualTo(200);
        assertThat(REDIS.admin().exists("sluice:rl:{login:127.0.0.1}")).isFalse();
        for (int i = 0; i < 3; i++) {
            assertThat(get("async-login?password=wrong").statusCode()).isEqualTo(401);
        }
        assertTooManyRequests(get("async-login?password=right"), "login", 3, HOUR);
    }

    @Test
    void aShadowedLimitNeverRefusesSendsNoHeadersAndCountsItsWouldBeRefusals() throws Exception {
        long before = wouldDeny("trial");
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> response = get("trial?password=right");
            assertThat(response.statusCode()).isEqualTo(200);
            assertNoRateLimitHeaders(response);
        }
        assertThat(REDIS.admin().exists("sluice:rl:{trial:127.0.0.1}")).as("charged as usual").isTrue();
        assertThat(wouldDeny("trial") - before).isEqualTo(3);
    }

    /** {@code WouldDeny} of the policy, summed over the applications in this JVM. */
    private static long wouldDeny(String policy) throws Exception {
        MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
        long sum = 0;
        for (ObjectName name : jmx.queryNames(new ObjectName("dev.sluice:type=RateLimit,name=" + policy + ",*"), null)) {
            sum += (Long) jmx.getAttribute(name, "WouldDeny");
        }
        return sum;
    }

    /** 200 for {@code password=right}, else 401. */
    public static class Login extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
            boolean right = "right".equals(request.getParameter("password"));
            response.setStatus(right ? 200 : 401);
            response.getWriter().write(right ? "welcome" : "no");
        }
    }

    /** {@link Login}, answered from another thread after {@code startAsync}. */
    public static class AsyncLogin extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) {
            boolean right = "right".equals(request.getParameter("password"));
            AsyncContext async = request.startAsync();
            async.start(() -> {
                try {
                    response.setStatus(right ? 200 : 401);
                    response.getWriter().write(right ? "welcome" : "no");
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                } finally {
                    async.complete();
                }
            });
        }
    }
}
