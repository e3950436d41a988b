package dev.sluice.internal.http;

import dev.sluice.internal.config.Bandwidth;
import dev.sluice.internal.config.Cidr;
import dev.sluice.internal.config.ForwardingHeader;
import dev.sluice.internal.config.IpLiteral;
import dev.sluice.internal.config.KeySpec;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.limit.InProcessRateLimitStore;
import dev.sluice.internal.redis.KeyMaterial;
import dev.sluice.internal.limit.Engines;
import dev.sluice.internal.limit.RateLimitEngine;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Request data meant to break Sluice, at core level: what the servlet filter and JAX-RS hand over (header, query,
 * path and principal values, {@code Forwarded} and {@code X-Forwarded-For} lines) goes through client-address
 * resolution, key resolution and {@link KeyMaterial} into a Redis key. Whatever comes in:
 * <ul>
 *   <li>nothing throws;</li>
 *   <li>the client address is the peer or a canonical IP literal, and from an untrusted peer always the peer;</li>
 *   <li>the Redis key is printable ASCII without spaces, has exactly one hash tag (the braces Sluice puts there),
 *       and is at most 200 bytes even with the longest key prefix and policy name configuration allows;</li>
 *   <li>different values get different buckets.</li>
 * </ul>
 */
class HostileRequestDataTest {

    private static final String PEER = "10.0.0.2";
    /** Prefix 128: one bucket per IPv6 address, so that every resolved address is a plain canonical literal. */
    private static final ClientAddress BEHIND_PROXY = new ClientAddress(List.of(Cidr.parse("t", "10.0.0.0/8")),
            ForwardingHeader.X_FORWARDED_FOR, 128);
    private static final ClientAddress BEHIND_FORWARDING_PROXY = new ClientAddress(List.of(Cidr.parse("t", "10.0.0.0/8")),
            ForwardingHeader.FORWARDED, 128);
    private static final ClientAddress DIRECT = new ClientAddress(List.of(), ForwardingHeader.FORWARDED, 128);
    /** The longest prefix and policy name configuration accepts. */
    private static final String LONGEST_PREFIX = "p".repeat(32);
    private static final String LONGEST_POLICY = "n".repeat(64);
    private static final int MAX_KEY_BYTES = 200;
    private static final Pattern VERBATIM = Pattern.compile("[A-Za-z0-9._:@/-]{1,64}");
    private static final Pattern HASHED = Pattern.compile("#[A-Za-z0-9_-]{22}");

    /** Values from the issue (64 KB, CR/LF, NUL, invalid UTF-8 as a container decodes it) and more. */
    static List<String> hostileValues() {
        List<String> values = new ArrayList<>(List.of(
                "x".repeat(64 * 1024), "{".repeat(64 * 1024), "}{", "{a}", "a}b{c", "\r\nSet-Cookie: x=1", "a\u0000b",
                "\u0000", "a\rb", "a\nb", "a b", " leading", "trailing ", "\t",
                // Invalid UTF-8 bytes as Servlet containers hand them over: each byte as an ISO-8859-1 char.
                new String(new byte[] {(byte) 0xC3, 0x28}, StandardCharsets.ISO_8859_1),
                new String(new byte[] {(byte) 0xFF, (byte) 0xFE, (byte) 0xFD}, StandardCharsets.ISO_8859_1),
                new String(new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, StandardCharsets.ISO_8859_1),
                new String(new byte[] {(byte) 0xC0, (byte) 0xAF}, StandardCharsets.ISO_8859_1),
                // ... and as a lenient decoder hands them over: replacement characters, lone surrogates.
                "\uFFFD\uFFFD", "\uD800", "\uDC00x", "\uD83D\uDE00", "\u202Egnp.exe", "e\u0301",
                "*", "?", "[a]", "\\", "\"", "'", "%00", "%0d%0a", "${jndi:ldap://x/a}", "../../etc", ":", "::::",
                "#hash", "#" + "A".repeat(22), "sluice:rl:{other:key}", "a".repeat(64), "a".repeat(65), "-", "."));
        StringBuilder allChars = new StringBuilder();
        for (char c = 0; c < 0x100; c++) {
            allChars.append(c);
        }
        values.add(allChars.toString());
        return values;
    }

    /** {@code Forwarded} lines malformed in every way we could think of, single and combined. */
    static List<String> malformedForwarded() {
        List<String> lines = new ArrayList<>(List.of(
                "for=", "for", "=", "for==1.2.3.4", "for=\"", "for=\"\"", "for=\"1.2.3.4", "for=1.2.3.4\"",
                "for=\"[::1\"", "for=\"[::1]:x\"", "for=[::1", "for=::1]", "for=\"[::1]]\"", "for=\"[[::1]\"",
                "for=1.2.3.4:99999", "for=1.2.3.4:-1", "for=1.2.3.4:", "for=1.2.3", "for=1.2.3.4.5",
                "for=256.1.1.1", "for=01.02.03.04", "for=0x7f.1.1.1", "for=1.2.3.4/8", "for=unknown",
                "for=_hidden", "for=_", "for=localhost", "for=\"1.2.3.4\\\"\"", "for=\"a\\", "for=\"\\\"\"",
                "for=1.2.3.4;for=5.6.7.8", "FOR=1.2.3.4;For=5.6.7.8", "for=1.2.3.4 for=5.6.7.8", ";;;;", ",,,,",
                "for=1.2.3.4,,", ",for=1.2.3.4", "by=10.0.0.1", "proto=https;host=x", "for=1.2.3.4;by", "for=1.2.3.4;=",
                "for=1.2.3.4;by=\"", "f\u0000r=1.2.3.4", "for=1.2.3.4\u0000", "for=1.2.3.4\r\nX: y", "for=\"1.2.3.4\r\n\"",
                "for=\u00ff\u00fe", "for=\"\uD800\"", "for=\"[fe80::1%25eth0]\"", "for=\"[fe80::1%eth0]\"",
                "for=\"[::ffff:1.2.3.4]\"", "for=\"[::]\"", "for=0.0.0.0", "for=255.255.255.255", "for=\"[1:2:3:4:5:6:7:8:9]\"",
                "for=\"[1::2::3]\"", "for=\"[:::1]\"", "for=\"[g::1]\"", "for=\"[" + "1:".repeat(5000) + "1]\"",
                "for=" + "1".repeat(64 * 1024), "for=1.2.3.4;" + "x=y;".repeat(10_000),
                "for=1.2.3.4, ".repeat(20_000), "for=\"" + "\\\\".repeat(20_000) + "\"", "\"for\"=1.2.3.4",
                "for =1.2.3.4", "for= 1.2.3.4", "for=1.2.3.4 ;by=x", "for=\"1.2.3.4\" ;", "for=1.2.3.4\t,\tfor=5.6.7.8"));
        List<String> combined = new ArrayList<>(lines);
        for (String line : lines.subList(0, 20)) {
            combined.add("for=192.0.2.1, " + line);
            combined.add(line + ", for=192.0.2.1");
        }
        return combined;
    }

    static List<String> malformedXForwardedFor() {
        return List.of("", ",", ", , ,", "unknown", "1.2.3", "1.2.3.4.5", "256.0.0.1", "[::1]", "[::1]:80", "::1%eth0",
                "1.2.3.4:80:90", "1.2.3.4 5.6.7.8", "1.2.3.4\u0000", "\r\n1.2.3.4", "\u00ff\u00fe", "x".repeat(64 * 1024),
                "1.2.3.4, ".repeat(50_000), ", ".repeat(50_000) + "1.2.3.4", "10.0.0.1, ".repeat(1000) + "garbage",
                "192.0.2.9, _hidden", "192.0.2.9,10.0.0.5,unknown");
    }

    @Test
    void everyMalformedForwardingHeaderYieldsThePeerOrACanonicalAddress() {
        for (String forwarded : malformedForwarded()) {
            assertCanonicalAddress(BEHIND_FORWARDING_PROXY.resolve(PEER, List.of(forwarded)), forwarded);
            assertCanonicalAddress(BEHIND_FORWARDING_PROXY.resolve(PEER, List.of(forwarded, "for=192.0.2.44")), forwarded);
            assertThat(DIRECT.resolve("198.51.100.1", List.of(forwarded)))
                    .as("an untrusted peer's headers are never read").isEqualTo("198.51.100.1");
        }
        for (String xff : malformedXForwardedFor()) {
            assertCanonicalAddress(BEHIND_PROXY.resolve(PEER, List.of(xff)), xff);
            assertCanonicalAddress(BEHIND_PROXY.resolve(PEER, List.of(xff, xff)), xff);
        }
    }

    @Test
    void randomlyGarbledForwardingHeadersNeverThrowNorYieldANonAddress() {
        Random random = new Random(7);
        List<String> wrong = new ArrayList<>();
        String[] pieces = {"for", "=", "\"", "[", "]", ":", ";", ",", " ", "\t", ".", "1", "2", "25", "255", "256",
            "::", "ffff", "%", "eth0", "unknown", "_x", "\\", "\u0000", "\r", "\n", "\u00ff", "\uD800", "by", "10.0.0.3"};
        for (int i = 0; i < 20_000; i++) {
            StringBuilder header = new StringBuilder();
            int length = 1 + random.nextInt(40);
            for (int p = 0; p < length; p++) {
                header.append(pieces[random.nextInt(pieces.length)]);
            }
            String value = header.toString();
            for (String resolved : List.of(BEHIND_FORWARDING_PROXY.resolve(PEER, List.of(value)),
                    BEHIND_PROXY.resolve(PEER, List.of(value)))) {
                if (!isPeerOrCanonical(resolved)) {
                    wrong.add(value + " -> " + resolved);
                }
            }
        }
        assertThat(wrong).isEmpty();
    }

    @Test
    void everyHostileValueOfEveryKeyTypeBecomesASafeBoundedRedisKey() {
        RateLimitEngine engine = Engines.over(new InProcessRateLimitStore(), LONGEST_PREFIX);
        Set<String> keys = new HashSet<>();
        Set<String> distinct = new HashSet<>();
        for (String value : hostileValues()) {
            KeyResolutionTest.View view = new KeyResolutionTest.View(value, Map.of("X-Key", value),
                    Map.of("q", value), Map.of("id", value), value, BEHIND_PROXY.resolve(PEER, List.of(value)));
            for (KeySpec spec : List.of(KeySpec.IP, new KeySpec(KeySpec.Type.PRINCIPAL, ""),
                    new KeySpec(KeySpec.Type.HEADER, "X-Key"), new KeySpec(KeySpec.Type.QUERY, "q"),
                    new KeySpec(KeySpec.Type.PATH_PARAM, "id"), new KeySpec(KeySpec.Type.PATH, ""))) {
                PolicyConfig policy = new PolicyConfig(LONGEST_POLICY, List.of(new Bandwidth(5, Duration.ofMinutes(1), 5),
                        new Bandwidth(50, Duration.ofHours(1), 50)), spec, List.of("/*"), Set.of(), 1, true);
                String raw = KeyResolution.of(policy, true).rawKey(view);
                String bucket = engine.bucketKey(LONGEST_POLICY, raw);
                // The second bandwidth's bucket is the longest key Sluice writes for a request.
                assertSafeKey(bucket + ":1", value);
                if (spec.type() == KeySpec.Type.HEADER && !value.isBlank()) {
                    keys.add(bucket);
                }
            }
            if (!value.isBlank()) {
                distinct.add(value);
            }
        }
        assertThat(keys.size()).as("distinct header values, distinct buckets").isEqualTo(distinct.size());
    }

    @Test
    void keyMaterialOfRandomStringsIsVerbatimOnlyWhenShortAndSafe() {
        Random random = new Random(11);
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            int length = random.nextInt(i % 1000 == 0 ? 70_000 : 90);
            StringBuilder raw = new StringBuilder(length);
            for (int c = 0; c < length; c++) {
                raw.append((char) (random.nextBoolean() ? 0x20 + random.nextInt(0x5F) : random.nextInt(0x10000)));
            }
            String text = raw.toString();
            String material = KeyMaterial.of(text);
            boolean ok = material.equals(text) ? VERBATIM.matcher(text).matches() : HASHED.matcher(material).matches();
            if (!ok) {
                wrong.add(abbreviate(text) + " -> " + material);
            }
        }
        assertThat(wrong).isEmpty();
    }

    private static void assertCanonicalAddress(String resolved, String from) {
        if (resolved.equals(PEER)) {
            return;
        }
        byte[] parsed = IpLiteral.parse(resolved);
        assertThat(parsed).as("client address %s from %s", resolved, abbreviate(from)).isNotNull();
        assertThat(IpLiteral.format(parsed)).as("canonical form").isEqualTo(resolved);
    }

    private static boolean isPeerOrCanonical(String resolved) {
        byte[] parsed = IpLiteral.parse(resolved);
        return resolved.equals(PEER) || parsed != null && IpLiteral.format(parsed).equals(resolved);
    }

    private static void assertSafeKey(String key, String from) {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        assertThat(bytes.length).as("bytes of the key for %s", abbreviate(from)).isLessThanOrEqualTo(MAX_KEY_BYTES);
        assertThat(key).as("key for %s", abbreviate(from)).matches("[\\x21-\\x7E]+");
        assertThat(key.chars().filter(c -> c == '{').count()).as("opening braces in %s", key).isEqualTo(1);
        assertThat(key.chars().filter(c -> c == '}').count()).as("closing braces in %s", key).isEqualTo(1);
        assertThat(key).startsWith(LONGEST_PREFIX + ":rl:{" + LONGEST_POLICY + ":").endsWith("}:1");
    }

    private static String abbreviate(String s) {
        return s.length() > 60 ? s.substring(0, 30) + "...(" + s.length() + " chars)" : s;
    }
}
