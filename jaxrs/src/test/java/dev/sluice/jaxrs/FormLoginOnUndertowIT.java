package dev.sluice.jaxrs;

import dev.sluice.filter.RateLimitFilter;
import dev.sluice.test.RedisServer;

import io.undertow.Undertow;
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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.Principal;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where a rate limit on a login form can sit on Undertow, the servlet engine of WildFly. Container FORM login
 * ({@code <auth-method>FORM</auth-method>}) answers {@code POST /j_security_check} in Undertow's security
 * handlers, before the filter chain: a filter (Sluice's or any other) never sees those requests, so a policy on
 * {@code /j_security_check} charges nothing. A login endpoint of the application's own that calls
 * {@code HttpServletRequest.login} runs behind the filters and is limited like any path.
 */
class FormLoginOnUndertowIT {

    @RegisterExtension
    static final RedisServer REDIS = RedisServer.standalone();

    private static final int LIMIT = 3;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private DeploymentManager manager;
    private Undertow server;
    private URI base;

    @BeforeEach
    void deploy() throws ServletException {
        DeploymentInfo info = Servlets.deployment()
                .setClassLoader(FormLoginOnUndertowIT.class.getClassLoader())
                .setContextPath("/")
                .setDeploymentName("form-login")
                .addServlet(Servlets.servlet("pages", Pages.class).addMapping("/"))
                .addServlet(Servlets.servlet("login", ProgrammaticLogin.class).addMapping("/login"))
                .addFilter(Servlets.filter("sluice", RateLimitFilter.class))
                .addFilterUrlMapping("sluice", "/*", DispatcherType.REQUEST)
                .addSecurityConstraint(new SecurityConstraint()
                        .addWebResourceCollection(new WebResourceCollection().addUrlPattern("/secret/*"))
                        .addRoleAllowed("user"))
                .setLoginConfig(new LoginConfig("FORM", "sluice", "/login-form", "/login-error"))
                .setIdentityManager(new OneUser())
                .addInitParameter("sluice.redis.uri", REDIS.uri())
                .addInitParameter("sluice.key-prefix", "form-" + ProcessHandle.current().pid())
                .addInitParameter("sluice.limit.login.rate", LIMIT + "/1h")
                .addInitParameter("sluice.limit.login.paths", "/j_security_check,/login")
                .addInitParameter("sluice.limit.login.methods", "POST");
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

    private HttpResponse<String> postForm(String path, String form) throws Exception {
        return client.send(HttpRequest.newBuilder(base.resolve(path))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void containerFormLoginAnswersJSecurityCheckBeforeAnyFilterRuns() throws Exception {
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < LIMIT * 3; i++) {
            HttpResponse<String> response = postForm("j_security_check", "j_username=alice&j_password=guess" + i);
            assertThat(response.headers().firstValue("RateLimit")).as("charged by Sluice").isEmpty();
            statuses.add(response.statusCode());
        }
        assertThat(statuses).as("every guess answered by the container, none refused").doesNotContain(429);
    }

    @Test
    void aLoginServletOfTheApplicationIsLimited() throws Exception {
        for (int i = 0; i < LIMIT; i++) {
            assertThat(postForm("login", "j_username=alice&j_password=guess" + i).statusCode()).isEqualTo(401);
        }
        assertThat(postForm("login", "j_username=alice&j_password=secret").statusCode())
                .as("even the right password, once the limit is spent").isEqualTo(429);
    }

    /** Login form, error page and everything else. */
    public static class Pages extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
            response.getWriter().write("page " + request.getRequestURI());
        }
    }

    /** The application's own login endpoint: the container checks the password, the filters ran first. */
    public static class ProgrammaticLogin extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            try {
                request.login(request.getParameter("j_username"), request.getParameter("j_password"));
                response.getWriter().write("welcome");
            } catch (ServletException wrongCredentials) {
                response.sendError(401);
            }
        }
    }

    private static final class OneUser implements IdentityManager {
        @Override
        public Account verify(Account account) {
            return account;
        }

        @Override
        public Account verify(String id, Credential credential) {
            boolean valid = "alice".equals(id) && credential instanceof PasswordCredential p
                    && "secret".equals(new String(p.getPassword()));
            return valid ? new Alice() : null;
        }

        @Override
        public Account verify(Credential credential) {
            return null;
        }
    }

    private static final class Alice implements Account {
        private static final long serialVersionUID = 1L;

        @Override
        public Principal getPrincipal() {
            return () -> "alice";
        }

        @Override
        public Set<String> getRoles() {
            return Set.of("user");
        }
    }
}
