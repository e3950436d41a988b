package dev.sluice.filter;

import dev.sluice.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static dev.sluice.filter.Descriptors.contextParams;
import static dev.sluice.test.RateLimitAssertions.assertAllowed;
import static dev.sluice.test.RateLimitAssertions.assertNoRateLimitHeaders;
import static dev.sluice.test.RateLimitAssertions.assertTooManyRequests;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code sluice.limit.<policy>.exempt} by network in a real Jetty against a real Redis: the client address is the
 * one resolved through {@code sluice.trusted-proxies} (the tests' peer, 127.0.0.1, is the proxy), and an exempt
 * client never touches its bucket.
 */
class RateLimitFilterExemptionIT {

    @RegisterExtension
    static final RedisServer REDIS = RedisServer.standalone();

    private static final long LIMIT = 2;
    private static final long HOUR = 3600;

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
                "sluice.limit.api.rate", LIMIT + "/1h",
                "sluice.limit.api.paths", "/api/*",
                "sluice.limit.api.exempt", "203.0.113.0/24, 2001:db8:1:2::7"));
        params.addAll(List.of(more));
        app = WebApp.start(root, contextParams(params.toArray(String[]::new)), true);
    }

    private HttpResponse<String> from(String forwardedFor) throws Exception {
        return app.get("/api/x", "X-Forwarded-For", forwardedFor);
    }

    @Test
    void aClientInAnExemptNetworkBehindATrustedProxyIsNeverChargedNorLimited() throws Exception {
        start("sluice.trusted-proxies", "127.0.0.1");
        REDIS.resetStats();
        for (int i = 0; i < LIMIT * 3; i++) {
            HttpResponse<String> response = from("203.0.113.5");
            assertThat(response.statusCode()).isEqualTo(200);
            assertNoRateLimitHeaders(response);
        }
        assertThat(ProtectedServlet.INVOCATIONS).hasValue((int) LIMIT * 3);
        assertThat(REDIS.commandCount("evalsha") + REDIS.commandCount("eval")).as("Redis never asked").isZero();
        assertThat(REDIS.admin().exists("sluice:rl:{api:203.0.113.5}")).isFalse();

        assertThat(assertAllowed(from("198.51.100.1"), "api", LIMIT, HOUR).remaining()).isEqualTo(LIMIT - 1);
        assertThat(assertAllowed(from("198.51.100.1"), "api", LIMIT, HOUR).remaining()).isZero();
        assertTooManyRequests(from("198.51.100.1"), "api", LIMIT, HOUR);
    }

    @Test
    void anExemptIpv6AddressLeavesTheBucketOfItsSlash64FullForItsNeighbours() throws Exception {
        start("sluice.trusted-proxies", "127.0.0.1");
        for (int i = 0; i < LIMIT * 3; i++) {
            assertNoRateLimitHeaders(from("2001:db8:1:2::7"));
        }
        // the neighbour shares the /64 bucket (sluice.ipv6-prefix=64) and finds it untouched
        assertThat(assertAllowed(from("2001:db8:1:2::8"), "api", LIMIT, HOUR).remaining()).isEqualTo(LIMIT - 1);
        assertThat(assertAllowed(from("2001:db8:1:2::8"), "api", LIMIT, HOUR).remaining()).isZero();
        assertTooManyRequests(from("2001:db8:1:2::8"), "api", LIMIT, HOUR);
        assertThat(from("2001:db8:1:2::7").statusCode()).as("still exempt with its /64 bucket spent").isEqualTo(200);
        assertThat(REDIS.admin().exists("sluice:rl:{api:2001:db8:1:2::/64}")).isTrue();
    }

    @Test
    void anIpv4ClientBehindNat64IsExemptAndKeyedByItsIpv4Address() throws Exception {
        start("sluice.trusted-proxies", "127.0.0.1");
        for (int i = 0; i < LIMIT * 2; i++) {
            assertNoRateLimitHeaders(from("64:ff9b::cb00:7105"));
        }
        assertThat(assertAllowed(from("64:ff9b::c000:201"), "api", LIMIT, HOUR).remaining()).isEqualTo(LIMIT - 1);
        assertThat(assertAllowed(from("64:ff9b::c633:6401"), "api", LIMIT, HOUR).remaining())
                .as("another IPv4 client through the same NAT64 prefix").isEqualTo(LIMIT - 1);
        assertThat(REDIS.admin().exists("sluice:rl:{api:192.0.2.1}")).isTrue();
    }

    @Test
    void aForwardingHeaderFromAnUntrustedPeerExemptsNobody() throws Exception {
        start();
        assertThat(assertAllowed(from("203.0.113.5"), "api", LIMIT, HOUR).remaining()).isEqualTo(LIMIT - 1);
        assertThat(REDIS.admin().exists("sluice:rl:{api:127.0.0.1}")).as("keyed by the peer").isTrue();
    }

    @Test
    void aMalformedForwardedHeaderNeverEarnsTheTrustedProxysExemption() throws Exception {
        start("sluice.trusted-proxies", "127.0.0.1", "sluice.forwarding-header", "forwarded",
                "sluice.limit.api.exempt", "127.0.0.0/8");
        // what the client wrote, then the element its proxy appended for it: the client is the proxy's element
        assertCharged(forwarded("for=\"x", "for=198.51.100.1"), "198.51.100.1");
        assertCharged(forwarded("for=\"x, for=198.51.100.2"), "198.51.100.2");
        assertCharged(forwarded("for=\"" + "x".repeat(20_000) + ", for=198.51.100.3"), "198.51.100.3");
        assertCharged(forwarded("for=198.51.100.4;for=1.2.3.4 junk", "for=198.51.100.4"), "198.51.100.4");

        // a proxy that could not name its client: keyed by the proxy, never exempt by the proxy's network
        for (int i = 0; i < LIMIT; i++) {
            assertCharged(forwarded("for=unknown"), "127.0.0.1");
        }
        assertThat(forwarded("for=unknown").status()).isEqualTo(429);
        assertThat(forwarded("for=\"x").status()).as("the proxy's own element unreadable").isEqualTo(429);

        RawHttp.Response own = RawHttp.get(app.uri(""), "/api/x", List.of());
        assertThat(own.status()).as("the proxy's own request, without a header, stays exempt").isEqualTo(200);
        assertThat(own.header("RateLimit")).isEmpty();
    }

    private RawHttp.Response forwarded(String... lines) throws Exception {
        List<byte[]> headers = new ArrayList<>();
        for (String line : lines) {
            headers.add(RawHttp.header("Forwarded", line.getBytes(StandardCharsets.ISO_8859_1)));
        }
        return RawHttp.get(app.uri(""), "/api/x", headers);
    }

    private static void assertCharged(RawHttp.Response response, String client) {
        assertThat(response.status()).isEqualTo(200);
        assertThat(response.header("RateLimit")).as("charged, not exempt").isPresent();
        assertThat(REDIS.admin().exists("sluice:rl:{api:" + client + "}")).as(client).isTrue();
    }

    @Test
    void theLoopbackPeerItselfCanBeExempt() throws Exception {
        start("sluice.limit.api.exempt", "127.0.0.1");
        for (int i = 0; i < LIMIT * 2; i++) {
            assertNoRateLimitHeaders(app.get("/api/x"));
        }
        assertThat(REDIS.admin().exists("sluice:rl:{api:127.0.0.1}")).isFalse();
    }
}
