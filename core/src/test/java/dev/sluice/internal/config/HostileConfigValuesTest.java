package dev.sluice.internal.config;

import dev.sluice.SluiceConfigException;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Every configuration key against values meant to break it: for each key a table of values that must fail the
 * deployment with a {@link SluiceConfigException} naming that key, then a set of hostile strings (CR/LF, NUL, 64 KB,
 * a lone surrogate, placeholders) that each key must either accept or reject naming itself, never with another
 * exception. A new key without a row here fails {@link #everyKeyHasARowInTheTable()}.
 */
class HostileConfigValuesTest {

    private static final String POLICY = "sluice.limit.p.";
    private static final String LOCK = "sluice.lock.Orders.place.";
    private static final String SEMAPHORE = "sluice.semaphore.pdf.";
    private static final String SECRET = "S3cret-that-must-not-leak";

    /** Values no key should choke on. */
    private static final List<String> HOSTILE = List.of(
            "\r\nX-Injected: 1", "a\u0000b", "x".repeat(64 * 1024), "\uD800", "\u202Eevil", "{slot}", "${sluice.redis.password}",
            "../../../../etc/passwd", "'; DROP TABLE x; --", "%00%0d%0a", "\t \t", "é\u0301");

    /**
     * One key: the other settings it needs to be read at all, and values that must be refused.
     *
     * @param key     the key under test
     * @param context other settings present at the same time
     * @param bad     values the deployment must refuse, naming {@code key}
     */
    private record Row(String key, Map<String, String> context, List<String> bad) {
    }

    private static final Map<String, String> RATE = Map.of(POLICY + "rate", "10/1s");

    private static final List<Row> TABLE = List.of(
            new Row("sluice.redis.uri", Map.of(), List.of("localhost:6379", "http://h:6379", "redis://h:0",
                    "redis://h:65536", "redis://h:port", "redis://h:1/db", "redis://h:1/-1", "redis://h:1?timeout=1",
                    "redis://user@h:1", "redis://", "redis://:@", "redis://h:1#frag", "rediss//h:1")),
            new Row("sluice.redis.sentinels", Map.of("sluice.redis.master-name", "mymaster"), List.of("h", "h:",
                    ":26379", "h:0", "h:70000", "h:x", "a:1,a:1", ",,,", "redis://h:26379")),
            new Row("sluice.redis.master-name", Map.of(), List.of("mymaster", "x")),
            new Row("sluice.redis.cluster-nodes", Map.of(), List.of("h", "h:0", "h:99999", "a:1,a:1", "h:-1", ",")),
            new Row("sluice.redis.redlock-nodes", Map.of(), List.of("redis://a:1", "redis://a:1,redis://b:2",
                    "redis://a:1,redis://a:1,redis://b:2", "redis://a:1,redis://b:2,c:3",
                    "redis://a:1,redis://b:2,http://c:3")),
            new Row("sluice.redis.user", Map.of("sluice.redis.uri", "redis://app:pw@h:6379"), List.of("other")),
            new Row("sluice.redis.password", Map.of("sluice.redis.uri", "redis://:pw@h:6379"), List.of(SECRET)),
            new Row("sluice.redis.timeout", Map.of(), List.of("0", "0s", "-1s", "abc", "1ns", "999us", "25d",
                    "PT-1S", "1 s", "1.5s", "2", "9999999999999999999ms")),
            new Row("sluice.redis.pool.max-total", Map.of(), List.of("0", "-1", "x", "1.5", "99999999999", "1e3")),
            new Row("sluice.redis.pool.max-idle", Map.of(), List.of("-1", "x", "1.0", "99999999999")),
            new Row("sluice.redis.pool.min-idle", Map.of(), List.of("-1", "x", "65")),
            new Row("sluice.redis.pool.max-wait", Map.of(), List.of("0", "-5ms", "forever", "25d", "1h1")),
            new Row("sluice.redis.pipelining", Map.of(), List.of("on", "yes", "1", "off", "batch")),
            new Row("sluice.redis.tls", Map.of("sluice.redis.uri", "rediss://h:6380"), List.of("false", "FALSE",
                    "on", "yes", "1", "off")),
            new Row("sluice.key-prefix", Map.of(), List.of("app:v1", "{app}", "a b", "x".repeat(33), "caf\u00e9",
                    "a*", "a\u0000b")),
            new Row("sluice.on-redis-failure", Map.of(), List.of("open", "closed", "1", "allow,deny", "fail")),
            new Row("sluice.trusted-proxies", Map.of(), List.of("proxy.local", "10.0.0.0/33", "10.0.0.0/-1",
                    "::1/129", "1.2.3", "*", "10.0.0.0/8/8", "300.0.0.1", "10.0.0.0/x", "0.0.0.0/0", "::/0",
                    "010.0.0.0/8", "10.0.0.0/08", "10.0.0.0/+8", "::ffff:10.0.0.0/104")),
            new Row("sluice.forwarding-header", Map.of(), List.of("both", "x-real-ip", "X-Forwarded-For,Forwarded",
                    "xff")),
            new Row("sluice.ipv6-prefix", Map.of(), List.of("0", "31", "129", "64.5", "/64", "sixty-four")),
            new Row("sluice.nat64-prefixes", Map.of(), List.of("64:ff9b::/64", "192.0.2.0/24", "64:ff9b::1/96", "x",
                    ",", "2001:db8::/96 2001:db9::/96", "::ffff:0:0/96")),
            new Row("sluice.headers", Map.of(), List.of("draft", "ietf,legacy", "x-ratelimit", "0")),
            new Row("sluice.filter.enabled", Map.of(), List.of("on", "yes", "1", "enabled")),
            new Row("sluice.deny-cache.size", Map.of(), List.of("-1", "x", "1.5", "10000001", "off")),
            new Row("sluice.config.refresh", Map.of(), List.of("-1s", "x", "99ms", "30", "off")),
            new Row("sluice.mode", Map.of(), List.of("off", "dry-run", "enforce,shadow", "1", "shadowed")),
            new Row("sluice.script.gcra", Map.of(), List.of("/opt/gcra.lua", "http://x/gcra.lua", "classpath:",
                    "file:", "gcra.lua", "jar:file:/x.jar!/gcra.lua")),
            new Row(POLICY + "rate", Map.of(), List.of("ten/s", "0/1s", "-1/1s", "1/0s", "1/", "/1s", "1/1y", "1/1s,x",
                    "99999999999999999999/1s", "1//1s", "1/-1s", "1 per second", "100/1m;10/1s")),
            new Row(POLICY + "burst", RATE, List.of("0", "-1", "x", "1.5", "99999999999999999999")),
            new Row(POLICY + "key", RATE, List.of("cookie", "header:", "header:X Api", "query:", "bean:", "bean:1x",
                    "query:a=b", "ip:1", "path-param:")),
            new Row(POLICY + "paths", RATE, List.of("api/*", "/api/*/x", "/a b", "**", "/a?b", "*.a/b")),
            new Row(POLICY + "methods", RATE, List.of("PO ST", "GET;POST", "G(ET")),
            new Row(POLICY + "cost", RATE, List.of("0", "-1", "x", "11", "1.5")),
            new Row(POLICY + "enabled", RATE, List.of("yes", "1", "off")),
            new Row(POLICY + "on-redis-failure", RATE, List.of("open", "fail", "true")),
            new Row(POLICY + "exempt", RATE, List.of("10.0.0.0/33", "0.0.0.0/0", "::/0", "proxy.local",
                    "principal:", "role: ", "user:alice", "10.0.0.0/8,,role:", ",", "::ffff:10.0.0.0/104")),
            new Row(POLICY + "mode", RATE, List.of("off", "dry-run", "true", "enforce,shadow")),
            new Row(POLICY + "count", RATE, List.of("2xx,abc", "600", "99", "6xx", "0xx", "x01", "all,401", ",",
                    "4XX5", "401-403")),
            new Row(POLICY + "concurrency", Map.of(), List.of("0", "-1", "x", "1.5", "1000001", "many")),
            new Row(POLICY + "concurrency-lease", Map.of(POLICY + "concurrency", "2"), List.of("0s", "-1s", "x",
                    "50ms", "2d", "1h1", "30")),
            new Row(POLICY + "local-budget", RATE, List.of("-1ms", "x", "2s", "1001ms", "PT0.0005S", "30", "50 ms")),
            new Row(LOCK + "lease", Map.of(), List.of("0s", "-1s", "x", "0")),
            new Row(LOCK + "max-wait", Map.of(), List.of("-1s", "x", "soon")),
            new Row(SEMAPHORE + "permits", Map.of(), List.of("0", "-1", "x", "1.5", "99999999999")),
            new Row(SEMAPHORE + "lease", Map.of(), List.of("0s", "-1s", "x")),
            new Row(SEMAPHORE + "max-wait", Map.of(), List.of("-1s", "x")));

    @Test
    void everyKeyHasARowInTheTable() {
        Set<String> expected = new LinkedHashSet<>(SluiceConfigLoader.TOP_LEVEL_KEYS);
        PolicyLoader.ATTRIBUTES.forEach(a -> expected.add(POLICY + a));
        List.of("lease", "max-wait").forEach(a -> expected.add(LOCK + a));
        List.of("permits", "lease", "max-wait").forEach(a -> expected.add(SEMAPHORE + a));
        expected.add("sluice.script.gcra");
        assertThat(TABLE.stream().map(Row::key)).containsExactlyInAnyOrderElementsOf(expected);
    }

    @TestFactory
    Stream<DynamicTest> everyBadValueFailsTheDeploymentNamingItsKey() {
        return TABLE.stream().flatMap(row -> row.bad().stream().map(value -> DynamicTest.dynamicTest(
                row.key() + " = " + printable(value), () -> {
                    Throwable thrown = catchThrowable(() -> load(row, value));
                    assertThat(thrown).as("%s = %s", row.key(), value).isInstanceOf(SluiceConfigException.class);
                    SluiceConfigException e = (SluiceConfigException) thrown;
                    assertThat(e.key()).isEqualTo(row.key());
                    assertThat(e.getMessage()).startsWith(row.key() + ":").contains("expected");
                })));
    }

    @TestFactory
    Stream<DynamicTest> hostileStringsAreAcceptedOrRefusedNamingTheKeyNeverWithAnotherException() {
        return TABLE.stream().flatMap(row -> HOSTILE.stream().map(value -> DynamicTest.dynamicTest(
                row.key() + " = " + printable(value), () -> {
                    Throwable thrown = catchThrowable(() -> load(row, value));
                    if (thrown != null) {
                        assertThat(thrown).as("%s = %s", row.key(), printable(value))
                                .isInstanceOf(SluiceConfigException.class);
                        // A blank value counts as absent, which may leave a setting of the context incomplete.
                        Set<String> named = new LinkedHashSet<>(row.context().keySet());
                        named.add(row.key());
                        assertThat(((SluiceConfigException) thrown).key()).isIn(named);
                    }
                })));
    }

    @Test
    void passwordsNeverAppearInAnyMessageWhateverElseIsWrong() {
        List<Map<String, String>> broken = List.of(
                Map.of("sluice.redis.uri", "redis://app:" + SECRET + "@h:0"),
                Map.of("sluice.redis.uri", "redis://app:" + SECRET + "@h:1?x=y"),
                Map.of("sluice.redis.uri", "http://app:" + SECRET + "@h:1"),
                Map.of("sluice.redis.uri", "redis://:" + SECRET + "@h:1", "sluice.redis.password", SECRET),
                Map.of("sluice.redis.uri", "redis://app:" + SECRET + "@h:1", "sluice.redis.cluster-nodes", "a:1"),
                Map.of("sluice.redis.redlock-nodes", "redis://:" + SECRET + "@a:1,redis://:" + SECRET + "@b:2"),
                Map.of("sluice.redis.redlock-nodes", "redis://:" + SECRET + "@a:1,redis://:" + SECRET + "@a:1,"
                        + "redis://c:3"),
                Map.of("sluice.redis.redlock-nodes", "redis://:" + SECRET + "@a:0,redis://b:2,redis://c:3"),
                Map.of("sluice.redis.redlock-nodes", "redis://:" + SECRET + "@a:1,redis://b:2,redis://c:3"),
                Map.of("sluice.redis.pasword", SECRET),
                Map.of("sluice.redis.password", SECRET, "sluice.redis.timeout", "never"));
        for (Map<String, String> values : broken) {
            Throwable thrown = catchThrowable(() -> SluiceConfigLoader.load(ConfigSources.of(values)));
            assertThat(thrown).as("%s", values.keySet()).isInstanceOf(SluiceConfigException.class);
            assertThat(everything(thrown)).as("%s", values.keySet()).doesNotContain(SECRET);
        }
    }

    private static SluiceConfig load(Row row, String value) {
        Map<String, String> values = new HashMap<>(row.context());
        values.put(row.key(), value);
        return SluiceConfigLoader.load(ConfigSources.of(values));
    }

    /** The message, causes and stack trace, as a log would show them. */
    private static String everything(Throwable e) {
        StringWriter text = new StringWriter();
        e.printStackTrace(new PrintWriter(text));
        return text.toString();
    }

    private static String printable(String value) {
        StringBuilder out = new StringBuilder();
        for (char c : (value.length() > 40 ? value.substring(0, 20) + "...(" + value.length() + " chars)" : value)
                .toCharArray()) {
            out.append(c < 0x20 || c == 0x7F || Character.isSurrogate(c) ? String.format("\\u%04x", (int) c) : c);
        }
        return out.toString();
    }
}
