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

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.sluice.filter.Descriptors.contextParams;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Request data meant to break the filter, sent by a real HTTP client (and, for bytes a well-behaved client refuses
 * to send, byte for byte over a socket) to the real filter in Jetty 12 over a real Redis: 64 KB header and query
 * values, NUL, bare CR, invalid UTF-8, and {@code Forwarded} headers malformed in every way. The container may
 * refuse a request outright (400); when it hands it to the filter, the filter limits it like any other, never fails
 * with a 500, and every Redis key it writes is short printable ASCII.
 */
class RateLimitFilterHostileInputIT {

    private static final int SIXTY_FOUR_KB = 64 * 1024;

    @RegisterExtension
    static final RedisServer REDIS = RedisServer.standalone();

    @TempDir
    Path root;

    private WebApp app;

    @BeforeEach
    void start() throws Exception {
        ProtectedServlet.reset();
        app = WebApp.start(root, contextParams(
                "sluice.redis.uri", REDIS.uri(),
                "sluice.trusted-proxies", "127.0.0.1/32",
                "sluice.forwarding-header", "forwarded",
                "sluice.limit.user.rate", "5/1h", "sluice.limit.user.paths", "/user",
                "sluice.limit.user.key", "header:X-User",
                "sluice.limit.tenant.rate", "5/1h", "sluice.limit.tenant.paths", "/tenant",
                "sluice.limit.tenant.key", "query:t",
                "sluice.limit.client.rate", "1000/1d", "sluice.limit.client.paths", "/client"), true);
    }

    @AfterEach
    void stop() throws Exception {
        app.close();
        assertEveryRedisKeyIsShortPrintableAscii();
    }

    @Test
    void headerAndQueryValuesOfSixtyFourKilobytesAreLimitedLikeAnyOther() throws Exception {
        for (String value : List.of("x".repeat(SIXTY_FOUR_KB), "x".repeat(SIXTY_FOUR_KB - 1) + "y",
                "{".repeat(SIXTY_FOUR_KB))) {
            for (int i = 0; i < 5; i++) {
                RateLimitAssertions.assertAllowed(app.get("/user", "X-User", value), "user", 5, 3600);
            }
            RateLimitAssertions.assertTooManyRequests(app.get("/user", "X-User", value), "user", 5, 3600);
        }
        for (String query : List.of("x".repeat(SIXTY_FOUR_KB), "%7B".repeat(SIXTY_FOUR_KB / 3))) {
            for (int i = 0; i < 5; i++) {
                RateLimitAssertions.assertAllowed(app.get("/tenant?t=" + query), "tenant", 5, 3600);
            }
            RateLimitAssertions.assertTooManyRequests(app.get("/tenant?t=" + query), "tenant", 5, 3600);
        }
        assertThat(ProtectedServlet.INVOCATIONS).hasValue(5 * 5);
    }

    @Test
    void nulBareCrAndInvalidUtf8AreRefusedByTheContainerOrLimitedByTheFilterNeverAFiveHundred() throws Exception {
        Map<String, byte[]> values = new LinkedHashMap<>();
        values.put("NUL", new byte[] {0});
        values.put("a NUL b", new byte[] {'a', 0, 'b'});
        values.put("bare CR", new byte[] {'a', '\r', 'b'});
        values.put("DEL", new byte[] {'a', 0x7F});
        values.put("invalid UTF-8 C3 28", new byte[] {(byte) 0xC3, 0x28});
        values.put("invalid UTF-8 FF FE", new byte[] {(byte) 0xFF, (byte) 0xFE});
        values.put("CESU surrogate ED A0 80", new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80});
        values.put("overlong C0 AF", new byte[] {(byte) 0xC0, (byte) 0xAF});
        values.put("Latin-1 e9", new byte[] {'c', 'a', 'f', (byte) 0xE9});
        values.put("UTF-8 c3 a9", new byte[] {'c', 'a', 'f', (byte) 0xC3, (byte) 0xA9});
        values.put("obs-fold", new byte[] {'a', '\r', '\n', ' ', 'b'});
        values.put("braces", "}{sluice:rl:{x}".getBytes(StandardCharsets.ISO_8859_1));
        Map<String, List<Integer>> seen = new LinkedHashMap<>();
        for (Map.Entry<String, byte[]> value : values.entrySet()) {
            int invocationsBefore = ProtectedServlet.INVOCATIONS.get();
            List<Integer> statuses = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                statuses.add(RawHttp.get(app.uri(""), "/user", List.of(RawHttp.header("X-User", value.getValue())))
                        .status());
            }
            seen.put(value.getKey(), statuses);
            int invoked = ProtectedServlet.INVOCATIONS.get() - invocationsBefore;
            if (statuses.get(0) == 400) {
                assertThat(statuses).as(value.getKey()).containsOnly(400);
                assertThat(invoked).as("%s never reached the resource", value.getKey()).isZero();
            } else {
                assertThat(statuses).as(value.getKey()).containsExactly(200, 200, 200, 200, 200, 429);
                assertThat(invoked).as(value.getKey()).isEqualTo(5);
            }
        }
        for (String query : List.of("%00", "a%00b", "%0D%0AX-Injected:%201", "%", "%G0", "%%", "a%2", "\u00ff")) {
            List<Integer> statuses = sixQueries(query);
            seen.put("query t=" + query, statuses);
            assertThat(statuses).as(query).isIn(List.of(400, 400, 400, 400, 400, 400),
                    List.of(200, 200, 200, 200, 200, 429));
        }
        // Malformed UTF-8 decodes to U+FFFD, so distinct malformed values may share a bucket (%FF%FE and %C0%AF
        // both read as two replacement characters): never more than the limit per bucket, never a fresh one.
        int admitted = 0;
        for (String query : List.of("%C3%28", "%FF%FE", "%C0%AF", "%ED%A0%80", "%EF%BF%BD%EF%BF%BD")) {
            List<Integer> statuses = sixQueries(query);
            seen.put("query t=" + query, statuses);
            assertThat(statuses).as(query).endsWith(429).doesNotContain(500);
            admitted += (int) statuses.stream().filter(s -> s == 200).count();
        }
        assertThat(admitted).as("admissions over all malformed values").isLessThanOrEqualTo(5 * 5);
        seen.forEach((what, statuses) -> System.out.println("hostile " + what + ": " + statuses));
    }

    @Test
    void malformedForwardedHeadersFromATrustedProxyAllChargeTheProxysOwnBucket() throws Exception {
        List<byte[]> headers = new ArrayList<>();
        for (String value : List.of("for=", "for", "=", "for=\"", "for=\"\"", "for=\"1.2.3.4", "for=\"[::1\"",
                "for=[::1", "for=1.2.3.4:99999", "for=1.2.3", "for=1.2.3.4.5", "for=256.1.1.1", "for=unknown",
                "for=_hidden", "for=localhost", "for=1.2.3.4;for=5.6.7.8", "for=1.2.3.4 for=5.6.7.8", ";;;;", ",,,,",
                "by=10.0.0.1", "for=1.2.3.4;by", "for=\"[1::2::3]\"", "for=\"[g::1]\"", "\"for\"=1.2.3.4",
                "for=\"a\\", "for=" + "1".repeat(SIXTY_FOUR_KB / 2), "for=1.2.3.4, ".repeat(3_000) + "for=_x")) {
            headers.add(RawHttp.header("Forwarded", value.getBytes(StandardCharsets.ISO_8859_1)));
        }
        headers.add(RawHttp.header("Forwarded", new byte[] {'f', 'o', 'r', '=', (byte) 0xFF, (byte) 0xFE}));
        headers.add(RawHttp.header("Forwarded", new byte[] {'f', 'o', 'r', '=', '"', 0x01, '"'}));
        // X-Forwarded-For is not the configured header: even a well-formed one names no client
        headers.add(RawHttp.header("X-Forwarded-For", "garbage".getBytes(StandardCharsets.ISO_8859_1)));
        headers.add(RawHttp.header("X-Forwarded-For", "198.51.100.7".getBytes(StandardCharsets.ISO_8859_1)));

        long previous = 1000;
        int reachedTheFilter = 0;
        for (byte[] header : headers) {
            RawHttp.Response response = RawHttp.get(app.uri(""), "/client", List.of(header));
            String shown = new String(header, 0, Math.min(header.length, 60), StandardCharsets.ISO_8859_1);
            if (response.status() == 400) {
                continue;
            }
            assertThat(response.status()).as(shown).isEqualTo(200);
            long remaining = remaining(response, shown);
            assertThat(remaining).as("charged to the bucket of the proxy itself: %s", shown).isEqualTo(previous - 1);
            previous = remaining;
            reachedTheFilter++;
        }
        assertThat(reachedTheFilter).as("most malformed headers reach the filter").isGreaterThan(headers.size() / 2);
        // The proxy's own requests without any forwarding header land in the same bucket.
        RawHttp.Response plain = RawHttp.get(app.uri(""), "/client", List.of());
        assertThat(remaining(plain, "no header")).isEqualTo(previous - 1);
    }

    private List<Integer> sixQueries(String query) throws Exception {
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            RawHttp.Response response = RawHttp.get(app.uri(""), "/tenant?t=" + query, List.of());
            assertThat(response.headers()).as(query).noneMatch(h -> h.startsWith("X-Injected"));
            statuses.add(response.status());
        }
        return statuses;
    }

    private static long remaining(RawHttp.Response response, String what) {
        String field = response.header("RateLimit").orElseThrow(() -> new AssertionError("no RateLimit for " + what));
        Matcher r = Pattern.compile(";r=(\\d+)").matcher(field);
        assertThat(r.find()).as(field).isTrue();
        return Long.parseLong(r.group(1));
    }

    private static void assertEveryRedisKeyIsShortPrintableAscii() {
        String cursor = ScanParams.SCAN_POINTER_START;
        int keys = 0;
        do {
            ScanResult<String> page = REDIS.admin().scan(cursor, new ScanParams().count(1000));
            for (String key : page.getResult()) {
                assertThat(key.getBytes(StandardCharsets.UTF_8).length).as(key).isLessThanOrEqualTo(200);
                assertThat(key).matches("sluice:rl:\\{[\\x21-\\x7A|~]+}");
                keys++;
            }
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        System.out.println(keys + " Redis keys checked");
    }
}
