package dev.sluice.filter;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static dev.sluice.filter.Descriptors.contextParams;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a client can change about a request to a servlet protected by {@code sluice.limit.login.paths=/login}
 * in Jetty 12: the method's case, {@code HEAD} for {@code GET}, and the spelling of the path. After the
 * policy's {@value #LIMIT} tokens are spent, every variant is refused or does not reach the login servlet.
 * The same checks run on Undertow, for the filter and for JAX-RS, in the JAX-RS module
 * ({@code AbstractHostileClientIT}).
 */
class RequestVariantsIT {

    private static final int LIMIT = 3;
    private static final String LOGIN_SERVLET = """
            <servlet><servlet-name>login</servlet-name><servlet-class>dev.sluice.filter.LoginServlet</servlet-class></servlet>
            <servlet-mapping><servlet-name>login</servlet-name><url-pattern>/login</url-pattern></servlet-mapping>
            <servlet><servlet-name>view</servlet-name><servlet-class>dev.sluice.filter.RequestViewServlet</servlet-class></servlet>
            <servlet-mapping><servlet-name>view</servlet-name><url-pattern>/view</url-pattern></servlet-mapping>
            """;

    @TempDir
    Path root;

    private WebApp app;

    @AfterEach
    void stop() throws Exception {
        if (app != null) {
            app.close();
        }
    }

    private void start(String... params) throws Exception {
        List<String> all = new ArrayList<>(List.of("sluice.limit.login.rate", LIMIT + "/1h",
                "sluice.limit.login.paths", "/login"));
        all.addAll(List.of(params));
        app = WebApp.start(root, contextParams(all.toArray(String[]::new)) + LOGIN_SERVLET, true);
    }

    private RawHttp.Response send(String method, String target, String... headers) throws IOException {
        List<byte[]> lines = new ArrayList<>();
        for (String header : headers) {
            lines.add(header.getBytes(StandardCharsets.ISO_8859_1));
        }
        return RawHttp.send(app.uri(""), method, target, lines);
    }

    private void spend(String method) throws IOException {
        for (int i = 0; i < LIMIT; i++) {
            assertThat(send(method, "/login").status()).as("plain request %d", i + 1).isEqualTo(200);
        }
        assertThat(send(method, "/login").status()).as("plain request after the limit").isEqualTo(429);
    }

    /** The variants that were neither refused nor kept from the login servlet, with what they got. */
    private List<String> escapes(String method, String... targets) throws IOException {
        List<String> escaped = new ArrayList<>();
        for (String target : targets) {
            RawHttp.Response response = send(method, target);
            boolean served = response.status() / 100 == 2
                    && (method.equalsIgnoreCase("HEAD") || response.body().contains(LoginServlet.SERVED));
            if (response.status() != 429 && served) {
                escaped.add(method + " " + target + " -> " + response.status());
            }
        }
        return escaped;
    }

    @Test
    void aMethodInLowerCaseIsChargedToAPolicyListingItInUpperCase() throws Exception {
        start("sluice.limit.login.methods", "POST");
        spend("POST");

        assertThat(escapes("post", "/login")).isEmpty();
        assertThat(escapes("pOsT", "/login")).isEmpty();
    }

    @Test
    void headIsChargedToAPolicyListingGet() throws Exception {
        start("sluice.limit.login.methods", "GET");
        spend("GET");

        assertThat(escapes("HEAD", "/login")).isEmpty();
        assertThat(send("POST", "/login").status()).as("a method the policy does not list").isEqualTo(200);
    }

    @Test
    void everySpellingOfThePathIsChargedOrDoesNotReachTheLoginServlet() throws Exception {
        start();
        spend("POST");

        String[] variants = {"/login/", "/login;jsessionid=x", "/login;a=b", "//login", "/./login", "/%6cogin",
            "/x/../login", "/login/.", "/login%2F", "/%2Flogin", "/login%2f", "/login/;x=y", "/login?a=b", "/LOGIN",
            "/login%3Bx"};
        assertThat(escapes("POST", variants)).isEmpty();
        assertThat(escapes("GET", variants)).isEmpty();
    }

    @Test
    void withAPathKeyEverySpellingOfThePathSharesTheOneBucket() throws Exception {
        start("sluice.limit.login.key", "path");
        for (int i = 0; i < LIMIT; i++) {
            assertThat(send("POST", i % 2 == 0 ? "/login/" : "/login;jsessionid=x").status()).isEqualTo(200);
        }
        assertThat(send("POST", "/login").status()).as("the bucket of /login, spent by its spellings").isEqualTo(429);

        String[] variants = {"/login/", "/login;jsessionid=x", "/login;a=b", "//login", "/./login", "/%6cogin",
            "/x/../login", "/login/.", "/login/;x=y", "/login?a=b", "/login//"};
        assertThat(escapes("POST", variants)).isEmpty();
    }

    @Test
    void theRequestViewReportsTheMethodInUpperCase() throws Exception {
        start();
        assertThat(send("post", "/view").body()).startsWith("POST ");
        assertThat(send("Get", "/view").body()).startsWith("GET ");
    }

    @Test
    void theRequestViewReadsOnlyTheConfiguredForwardingHeader() throws Exception {
        start("sluice.trusted-proxies", "127.0.0.1");
        assertThat(send("GET", "/view", "Forwarded: for=192.0.2.60", "X-Forwarded-For: 203.0.113.7").body())
                .isEqualTo("GET 203.0.113.7");
        assertThat(send("GET", "/view", "Forwarded: for=192.0.2.60").body()).isEqualTo("GET 127.0.0.1");
        assertThat(send("GET", "/view", "X-Forwarded-For: 2001:db8:1:2::77").body()).isEqualTo("GET 2001:db8:1:2::/64");
    }

    @Test
    void theRequestViewReadsForwardedWhenConfiguredAndNeverFallsBackToXForwardedFor() throws Exception {
        start("sluice.trusted-proxies", "127.0.0.1", "sluice.forwarding-header", "forwarded");
        assertThat(send("GET", "/view", "Forwarded: for=192.0.2.60", "X-Forwarded-For: 203.0.113.7").body())
                .isEqualTo("GET 192.0.2.60");
        assertThat(send("GET", "/view", "Forwarded: for=\"192.0.2.60", "X-Forwarded-For: 203.0.113.7").body())
                .isEqualTo("GET 127.0.0.1");
    }
}
