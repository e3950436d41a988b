package dev.sluice.jaxrs;

import dev.sluice.test.RedisServer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a client can change about its requests to step around a limit, tried against both ways of protecting a
 * resource in a real servlet container: the servlet filter's {@code paths} ({@code /login}) and
 * {@code @RateLimited} ({@code /rs-login}). Each policy allows {@value #LIMIT} requests an hour; a test spends
 * them with plain requests and then checks that every variant of the request is refused, or is not served by
 * the protected resource at all (the container or the runtime routes it elsewhere or rejects it).
 *
 * <p>The peer is 127.0.0.1; tests that put it in {@code sluice.trusted-proxies} play the proxy themselves.
 */
abstract class AbstractHostileClientIT {

    @RegisterExtension
    static final RedisServer REDIS = RedisServer.standalone();

    static final int LIMIT = 3;
    private static final AtomicInteger PREFIXES = new AtomicInteger();

    private JaxrsContainer.Deployment deployment;

    /** The runtime under test, in a servlet container with the servlet filter in front of it. */
    abstract JaxrsContainer container();

    @AfterEach
    void undeploy() {
        if (deployment != null) {
            deployment.close();
        }
    }

    private void deploy(Map<String, String> extra) throws Exception {
        Map<String, String> settings = new HashMap<>();
        settings.put("sluice.redis.uri", REDIS.uri());
        settings.put("sluice.key-prefix", "h" + PREFIXES.incrementAndGet() + "-" + ProcessHandle.current().pid());
        settings.put("sluice.limit.login.rate", LIMIT + "/1h");
        settings.put("sluice.limit.login.paths", "/login");
        settings.put("sluice.limit.rs-login.rate", LIMIT + "/1h");
        settings.putAll(extra);
        deployment = container().deploy(new TestApplication(LoginResources.FilterProtected.class,
                LoginResources.AnnotationProtected.class, RateLimitFeature.class).properties(settings));
    }

    private RawHttp.Response send(String method, String target, String... headers) throws IOException {
        return RawHttp.send(deployment.base(), method, target, headers);
    }

    /** Spends the policy's tokens with plain requests; the next plain one is refused. */
    private void spend(String policy, String method, String... headers) throws IOException {
        for (int i = 0; i < LIMIT; i++) {
            assertThat(send(method, "/" + policy, headers).status()).as("plain request %d", i + 1).isEqualTo(200);
        }
        assertThat(send(method, "/" + policy, headers).status()).as("plain request after the limit").isEqualTo(429);
    }

    /** Each variant either refused (429) or not answered by the protected resource; lists the others. */
    private List<String> escapes(String policy, String method, List<String> targets, String... headers)
            throws IOException {
        List<String> escaped = new ArrayList<>();
        for (String target : targets) {
            RawHttp.Response response = send(method, target, headers);
            boolean served = response.status() / 100 == 2
                    && (method.equalsIgnoreCase("HEAD") || response.body().contains(LoginResources.SERVED + policy));
            if (response.status() != 429 && served) {
                escaped.add(method + " " + target + " -> " + response);
            }
        }
        return escaped;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"login", "rs-login"})
    void aMethodInLowerCaseIsChargedToAPolicyListingItInUpperCase(String policy) throws Exception {
        deploy(Map.of("sluice.limit." + policy + ".methods", "POST"));
        spend(policy, "POST");

        assertThat(escapes(policy, "post", List.of("/" + policy))).isEmpty();
        assertThat(escapes(policy, "Post", List.of("/" + policy))).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"login", "rs-login"})
    void headIsChargedToAPolicyListingGet(String policy) throws Exception {
        deploy(Map.of("sluice.limit." + policy + ".methods", "GET"));
        spend(policy, "GET");

        assertThat(escapes(policy, "HEAD", List.of("/" + policy))).isEmpty();
        assertThat(send("POST", "/" + policy).status()).as("a method the policy does not list").isEqualTo(200);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"login", "rs-login"})
    void everySpellingOfThePathIsChargedOrNotServed(String policy) throws Exception {
        deploy(Map.of());
        spend(policy, "POST");

        String p = policy;
        String encodedFirst = "%" + Integer.toHexString(p.charAt(0)) + p.substring(1);
        List<String> variants = List.of("/" + p + "/", "/" + p + ";jsessionid=x", "/" + p + ";a=b", "//" + p,
                "/./" + p, "/" + encodedFirst, "/x/../" + p, "/" + p + "/.", "/" + p + "%2F", "/%2F" + p,
                "/" + p + "%2f", "/" + p + "/;x=y", "/" + p + "?a=b", "/" + p.toUpperCase(java.util.Locale.ROOT));
        assertThat(escapes(policy, "POST", variants)).isEmpty();
        assertThat(escapes(policy, "GET", variants)).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"login", "rs-login"})
    void aClientsOwnForwardedHeaderChoosesNoBucketBehindAnXForwardedForProxy(String policy) throws Exception {
        deploy(Map.of("sluice.trusted-proxies", "127.0.0.1"));
        // the proxy (us) appends the client's address to X-Forwarded-For and passes Forwarded through
        for (int i = 0; i < LIMIT; i++) {
            assertThat(send("POST", "/" + policy, "Forwarded: for=192.0.2." + i, "X-Forwarded-For: 203.0.113.7")
                    .status()).isEqualTo(200);
        }
        assertThat(send("POST", "/" + policy, "Forwarded: for=192.0.2.99", "X-Forwarded-For: 203.0.113.7").status())
                .isEqualTo(429);
        assertThat(send("POST", "/" + policy, "X-Forwarded-For: 203.0.113.8").status())
                .as("another client behind the proxy").isEqualTo(200);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"login", "rs-login"})
    void aBrokenForwardedHeaderNeverHandsTheChoiceToTheClientsXForwardedFor(String policy) throws Exception {
        deploy(Map.of("sluice.trusted-proxies", "127.0.0.1", "sluice.forwarding-header", "forwarded"));
        spend(policy, "POST", "Forwarded: for=203.0.113.7");
        // the client breaks Forwarded (the proxy appends its element behind the client's) and adds its own X-F-F
        List<String> escaped = new ArrayList<>();
        for (String broken : List.of("for=\"1.2.3.4, for=203.0.113.7", "for=1.2.3.4;for=5.6.7.8, for=203.0.113.7",
                "for=" + "1".repeat(9000) + ", for=203.0.113.7")) {
            for (int i = 0; i < LIMIT + 1; i++) {
                RawHttp.Response response = send("POST", "/" + policy, "Forwarded: " + broken,
                        "X-Forwarded-For: 198.51.100." + i);
                if (response.status() == 200) {
                    escaped.add(broken.substring(0, Math.min(40, broken.length())) + " #" + i);
                }
            }
        }
        assertThat(escaped).as("requests admitted beyond the limit of the peer's bucket")
                .hasSizeLessThanOrEqualTo(LIMIT);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"login", "rs-login"})
    void rotatingThroughTheAddressesOfOneIpv6NetworkGivesNoFreshBucket(String policy) throws Exception {
        deploy(Map.of("sluice.trusted-proxies", "127.0.0.1"));
        for (int i = 0; i < LIMIT; i++) {
            assertThat(send("POST", "/" + policy, "X-Forwarded-For: 2001:db8:1:2::" + Integer.toHexString(i + 1))
                    .status()).isEqualTo(200);
        }
        assertThat(send("POST", "/" + policy, "X-Forwarded-For: 2001:db8:1:2:ffff:ffff:ffff:ffff").status())
                .isEqualTo(429);
        assertThat(send("POST", "/" + policy, "X-Forwarded-For: 2001:db8:1:3::1").status())
                .as("the next /64").isEqualTo(200);
        assertThat(send("POST", "/" + policy, "X-Forwarded-For: ::ffff:203.0.113.7").status())
                .as("an IPv4-mapped client is an IPv4 client").isEqualTo(200);
    }
}
