package dev.sluice.internal.http;

import dev.sluice.internal.config.Cidr;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.ForwardingHeader;
import dev.sluice.internal.config.SluiceConfigLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

class ClientAddressTest {

    private static final String PROXY = "10.0.0.1";

    private static final List<Cidr> PROXIES = List.of(
            Cidr.parse("sluice.trusted-proxies", "10.0.0.0/8"),
            Cidr.parse("sluice.trusted-proxies", "fd00::/8"));

    /** One bucket per IPv6 address (prefix 128), so that canonical forms show in full. */
    private final ClientAddress behindProxies = new ClientAddress(PROXIES, ForwardingHeader.X_FORWARDED_FOR, 128);
    private final ClientAddress behindForwardingProxies = new ClientAddress(PROXIES, ForwardingHeader.FORWARDED, 128);
    private final ClientAddress direct = new ClientAddress(List.of(), ForwardingHeader.X_FORWARDED_FOR, 128);
    /** As configured with only {@code sluice.trusted-proxies}: every other setting at its default. */
    private final ClientAddress defaults = ClientAddress.of(SluiceConfigLoader.load(ConfigSources.of(
            Map.of("sluice.trusted-proxies", "10.0.0.0/8, fd00::/8"))));

    private String xff(String... lines) {
        return behindProxies.resolve(PROXY, Arrays.asList(lines));
    }

    private String forwarded(String... lines) {
        return behindForwardingProxies.resolve(PROXY, Arrays.asList(lines));
    }

    @Test
    void ignoresForwardingHeadersWhenNoProxyIsTrusted() {
        assertThat(direct.resolve("192.0.2.9", List.of("203.0.113.7"))).isEqualTo("192.0.2.9");
        assertThat(direct.resolve("fd00::1", List.of("203.0.113.7"))).isEqualTo("fd00::1");
        assertThat(direct.resolveAddress("fd00::1", List.of("203.0.113.7"))).isEqualTo("fd00::1");
    }

    /** The header's lines are asked for only when the peer is a trusted proxy: nobody else's are ever read. */
    @Test
    void readsTheForwardingHeaderOnlyForATrustedPeer() {
        AtomicInteger reads = new AtomicInteger();
        Supplier<List<String>> lines = () -> {
            reads.incrementAndGet();
            return List.of("203.0.113.7");
        };
        assertThat(direct.resolve("192.0.2.9", lines)).isEqualTo("192.0.2.9");
        assertThat(direct.resolve("fd00::1", lines)).isEqualTo("fd00::1");
        assertThat(behindProxies.resolve("192.0.2.9", lines)).isEqualTo("192.0.2.9");
        assertThat(behindProxies.resolveAddress("192.0.2.9", lines)).isEqualTo("192.0.2.9");
        assertThat(reads).hasValue(0);
        assertThat(behindProxies.resolve(PROXY, lines)).isEqualTo("203.0.113.7");
        assertThat(behindProxies.resolveAddress(PROXY, lines)).isEqualTo("203.0.113.7");
        assertThat(reads).hasValue(2);
    }

    @Test
    void ignoresForwardingHeadersFromAnUntrustedPeer() {
        assertThat(behindProxies.resolve("192.0.2.9", List.of("203.0.113.7"))).isEqualTo("192.0.2.9");
        assertThat(behindForwardingProxies.resolve("192.0.2.9", List.of("for=203.0.113.7"))).isEqualTo("192.0.2.9");
    }

    @Test
    void takesTheAddressATrustedProxyReports() {
        assertThat(xff("203.0.113.7")).isEqualTo("203.0.113.7");
    }

    @Test
    void takesTheRightMostUntrustedAddressSoClientWrittenEntriesAreNeverBelieved() {
        assertThat(xff("198.51.100.1, 203.0.113.7")).isEqualTo("203.0.113.7");
        assertThat(xff("198.51.100.1, 203.0.113.7, 10.1.2.3")).isEqualTo("203.0.113.7");
        assertThat(xff("198.51.100.1", "203.0.113.7")).isEqualTo("203.0.113.7");
    }

    @Test
    void takesTheLeftMostHopWhenEveryHopIsTrusted() {
        assertThat(xff("10.9.9.9, 10.0.0.2")).isEqualTo("10.9.9.9");
    }

    @Test
    void stopsAtAHopTheTrustedProxyCouldNotNameAndKeysTheRequestByThatProxy() {
        assertThat(xff("203.0.113.7, unknown")).isEqualTo(PROXY);
        assertThat(xff("203.0.113.7, unknown, 10.0.0.2")).isEqualTo("10.0.0.2");
        assertThat(forwarded("for=203.0.113.7, for=_hidden")).isEqualTo(PROXY);
        assertThat(forwarded("for=203.0.113.7, for=unknown")).isEqualTo(PROXY);
        assertThat(forwarded("for=203.0.113.7, by=10.0.0.1")).isEqualTo(PROXY);
    }

    @Test
    void aClientNoAddressIsEstablishedForIsNeverTakenForItsProxysAddress() {
        assertThat(xffAddress("203.0.113.7, unknown")).as("what exemptions are compared with").isEmpty();
        assertThat(xffAddress("203.0.113.7, unknown, 10.0.0.2")).isEmpty();
        assertThat(xffAddress("garbage")).isEmpty();
        assertThat(forwardedAddress("for=203.0.113.7, for=_hidden")).isEmpty();
        assertThat(forwardedAddress("for=unknown")).isEmpty();
        assertThat(forwardedAddress("proto=https")).as("an element without for=").isEmpty();
        assertThat(forwardedAddress("for=\"x")).as("an unterminated quote").isEmpty();
        assertThat(forwardedAddress("for=" + "1".repeat(ForwardingHeaders.MAX_HEADER_CHARS))).as("cut").isEmpty();
        assertThat(forwardedAddress("for=10.0.0.7, ".repeat(40) + "for=10.0.0.2"))
                .as("more trusted hops than are read").isEmpty();
    }

    @Test
    void aTrustedProxysOwnRequestIsItsOwnClient() {
        assertThat(xffAddress()).isEqualTo(PROXY);
        assertThat(xffAddress(" , ")).as("an empty list").isEqualTo(PROXY);
        assertThat(forwardedAddress()).isEqualTo(PROXY);
        assertThat(xffAddress("10.9.9.9, 10.0.0.2")).as("a trusted host the proxies named").isEqualTo("10.9.9.9");
    }

    @Test
    void readsATrustedProxysElementWhateverTheClientWroteBeforeIt() {
        assertThat(forwarded("for=\"x", "for=203.0.113.7")).isEqualTo("203.0.113.7");
        assertThat(forwarded("for=\"x, for=203.0.113.7")).as("appended to the client's line").isEqualTo("203.0.113.7");
        assertThat(forwarded("for=\"x\\, for=\"[2001:db8::7]:4711\"")).isEqualTo("2001:db8::7");
        assertThat(forwarded("f@r=1;;=, for=203.0.113.7;proto=https")).isEqualTo("203.0.113.7");
        assertThat(forwarded("for=\"" + "x".repeat(20_000) + "\", for=203.0.113.7"))
                .as("past the length limit").isEqualTo("203.0.113.7");
        assertThat(forwardedAddress("for=\"x", "for=203.0.113.7, for=10.0.0.2")).isEqualTo("203.0.113.7");
        assertThat(forwarded("for=\"x", "for=10.0.0.2")).as("an inner proxy whose own hop is unreadable")
                .isEqualTo("10.0.0.2");
        assertThat(forwardedAddress("for=\"x", "for=10.0.0.2")).isEmpty();
    }

    private String xffAddress(String... lines) {
        return behindProxies.resolveAddress(PROXY, Arrays.asList(lines));
    }

    private String forwardedAddress(String... lines) {
        return behindForwardingProxies.resolveAddress(PROXY, Arrays.asList(lines));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "", " ", ",,,", "unknown", "_obf", "example.com", "localhost", "1.2.3", "1.2.3.4.5", "256.1.1.1",
        "01.2.3.4", "1.2.3.-4", "1..2.3", "1.2.3.4:", "1.2.3.4:99999", "1.2.3.4:8a", "1.2.3.4 5.6.7.8",
        "::1::2", "1:2:3:4:5:6:7:8:9", "12345::1", "[::1", "::1]", "[::1]x", "[1.2.3.4]", "g::1", "fe80::1%",
        "fe80::1%eth 0", "\u0661.\u0662.\u0663.\u0664", "\uff11.2.3.4", "1.2.3.4\r\nX-Evil: 1", "0x7f.0.0.1",
        "2130706433", "[::1]:", "::1:", ":::1"
    })
    void fallsBackToThePeerForAMalformedEntry(String entry) {
        assertThat(xff(entry)).isEqualTo(PROXY);
        boolean noEntry = entry.isBlank() || entry.equals(",,,");
        assertThat(xffAddress(entry)).as("exempt as the proxy only without any entry").isEqualTo(noEntry ? PROXY : "");
    }

    @Test
    void acceptsIpv4WithAPort() {
        assertThat(xff("203.0.113.7:51234")).isEqualTo("203.0.113.7");
    }

    @Test
    void canonicalisesIpv6SoOneClientHasOneBucket() {
        assertThat(xff("2001:DB8:0:0:0:0:0:1")).isEqualTo("2001:db8::1");
        assertThat(xff("[2001:db8::1]:4711")).isEqualTo("2001:db8::1");
        assertThat(xff("[2001:db8::1]")).isEqualTo("2001:db8::1");
        assertThat(xff("2001:0db8:0000:0000:0001:0000:0000:0001")).isEqualTo("2001:db8::1:0:0:1");
        assertThat(xff("2001:db8:0:1:1:1:1:1")).isEqualTo("2001:db8:0:1:1:1:1:1");
        assertThat(xff("::")).isEqualTo("::");
        assertThat(xff("1::")).isEqualTo("1::");
        assertThat(xff("::2:3:4:5:6:7:8")).isEqualTo("0:2:3:4:5:6:7:8");
        assertThat(xff("64:ff9b::192.0.2.33")).as("NAT64, by its IPv4 address").isEqualTo("192.0.2.33");
    }

    @Test
    void dropsZoneIds() {
        assertThat(xff("fe80::1%eth0")).isEqualTo("fe80::1");
        assertThat(xff("[fe80::1%25eth0]:80")).isEqualTo("fe80::1");
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"2001:db8::ffff:1.2.3.4", "1::ffff:1.2.3.4",
            "0:1::ffff:1.2.3.4", "0:0:1::ffff:1.2.3.4", "0:0:0:1::ffff:1.2.3.4", "::1:ffff:1.2.3.4",
            "::fffe:1.2.3.4", "::7fff:1.2.3.4"})
    void anIpv6AddressThatOnlyLooksIpv4MappedKeepsItsOwnBucket(String lookAlike) {
        assertThat(xff(lookAlike)).isNotEqualTo("1.2.3.4").contains("102:304");
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"192.0.2.1:0", "192.0.2.1:65535",
            "\"192.0.2.1:_09azAZ.-_\"", "\"[2001:db8::1]:_node-7\""})
    void readsAnAddressWithAPortOrAnObfuscatedPort(String value) {
        assertThat(forwarded("for=" + value)).isIn("192.0.2.1", "2001:db8::1");
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"192.0.2.1:", "192.0.2.1:65536", "192.0.2.1:123456",
            "192.0.2.1:8o", "\"192.0.2.1:_a/b\"", "\"192.0.2.1:_a`b\"", "\"192.0.2.1:_a{b\"",
            "\"192.0.2.1:_a@b\"", "\"192.0.2.1:_a[b\"", "\"[2001:db8::1]x\""})
    void takesThePeerForAnAddressWithABadPort(String value) {
        assertThat(forwarded("for=" + value)).isEqualTo(PROXY);
    }

    @Test
    void readsIpv4MappedIpv6AsIpv4() {
        assertThat(xff("::ffff:203.0.113.7")).isEqualTo("203.0.113.7");
        assertThat(direct.resolve("::ffff:192.0.2.1", List.of())).isEqualTo("192.0.2.1");
    }

    @Test
    void trustsIpv6Proxies() {
        assertThat(behindProxies.resolve("[fd00::5]", List.of("2001:db8::7"))).isEqualTo("2001:db8::7");
        assertThat(behindProxies.resolve("fd00:0:0:0:0:0:0:5", List.of("2001:db8::7"))).isEqualTo("2001:db8::7");
        assertThat(behindProxies.isTrustedProxy("[fd00::1]:443")).isTrue();
        assertThat(behindProxies.isTrustedProxy("2001:db8::1")).isFalse();
    }

    @Test
    void returnsAPeerThatIsNoAddressAsItIs() {
        assertThat(behindProxies.resolve("unix:/run/socket", List.of("203.0.113.7"))).isEqualTo("unix:/run/socket");
        assertThat(behindProxies.resolve(null, List.of())).isEmpty();
    }

    @Test
    void readsRfc7239Forwarded() {
        assertThat(forwarded("for=192.0.2.60;proto=http;by=203.0.113.43")).isEqualTo("192.0.2.60");
        assertThat(forwarded("For=\"[2001:db8:cafe::17]:4711\"")).isEqualTo("2001:db8:cafe::17");
        assertThat(forwarded("for=192.0.2.43, for=198.51.100.17")).isEqualTo("198.51.100.17");
        assertThat(forwarded("for=192.0.2.43", "for=198.51.100.17;proto=https")).isEqualTo("198.51.100.17");
        assertThat(forwarded("for=198.51.100.17 ; proto=https ,, ")).isEqualTo("198.51.100.17");
        assertThat(forwarded("proto=https;for=\"198.51.100.17\";host=\"a,b;c\"")).isEqualTo("198.51.100.17");
        assertThat(forwarded("for=\"\\1\\98.51.100.17\"")).isEqualTo("198.51.100.17");
    }

    @Test
    void acceptsUnquotedIpv6InForwardedAsSomeProxiesWriteIt() {
        assertThat(forwarded("for=[2001:db8::17]:4711")).isEqualTo("2001:db8::17");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "for=192.0.2.60;for=192.0.2.61", "for=\"192.0.2.60", "for=192.0.2.60 junk", "for", "for=",
        "=192.0.2.60", "for=192.0.2.60;;=x", "f@r=192.0.2.60", "for=\"192.0.2.60\"x", "for=\"a\u0000b\"",
        "for=192.0.2.60\u0001", "for=\"192.0.2.60\\"
    })
    void keysAMalformedNearestForwardedElementByThePeerButReadsTheNearestElementsBeforeIt(String header) {
        assertThat(forwarded(header)).isEqualTo(PROXY);
        assertThat(forwardedAddress(header)).isEmpty();
        assertThat(forwarded("for=192.0.2.1", header)).isEqualTo(PROXY);
        assertThat(forwarded(header, "for=192.0.2.1")).as("the proxy's element is read").isEqualTo("192.0.2.1");
    }

    @Test
    void boundsTheWorkOnHugeHeaders() {
        String spoofed = "198.51.100.1, ".repeat(20_000);
        assertThat(xff(spoofed + "203.0.113.7")).isEqualTo("203.0.113.7");
        String trustedChain = "10.0.0.7, ".repeat(20_000);
        assertThat(xff("203.0.113.7, " + trustedChain + "10.0.0.2"))
                .as("the walk stops after MAX_HOPS trusted hops at the last trusted one").isEqualTo("10.0.0.7");
        String hugeForwarded = "for=198.51.100.1, ".repeat(1_000) + "for=192.0.2.60";
        assertThat(forwarded(hugeForwarded)).as("a Forwarded header is read from its end").isEqualTo("192.0.2.60");
        assertThat(forwarded("for=10.0.0.7" + " ".repeat(10_000)))
                .as("a Forwarded element reaching beyond 8 KiB is not read").isEqualTo(PROXY);
        assertThat(xff("203.0.113.7" + " ".repeat(10_000)))
                .as("an X-Forwarded-For entry reaching beyond 8 KiB is not read").isEqualTo(PROXY);
        String paddedTrustedChain = ("10.0.0.7" + " ".repeat(300) + ",").repeat(30);
        assertThat(xff("203.0.113.7, " + paddedTrustedChain + "10.0.0.2"))
                .as("the walk stops at the last trusted hop within 8 KiB").isEqualTo("10.0.0.7");
        String manyForwardedHops = "for=10.0.0.7, ".repeat(100) + "for=10.0.0.2";
        assertThat(forwarded("for=203.0.113.7, " + manyForwardedHops))
                .as("the walk stops after MAX_HOPS trusted hops at the last trusted one").isEqualTo("10.0.0.7");
    }

    @Test
    void readsOnlyTheNearestHopsOfAManyLineHeader() {
        String[] lines = new String[1000];
        Arrays.fill(lines, "10.0.0.9");
        lines[999] = "203.0.113.7";
        assertThat(xff(lines)).isEqualTo("203.0.113.7");
    }

    @Test
    void takesThePeerWhenTheNearestForwardedElementHasNoFor() {
        assertThat(forwarded("proto=https")).isEqualTo(PROXY);
        assertThat(forwarded("for=192.0.2.1", "proto=https")).isEqualTo(PROXY);
        assertThat(forwarded("proto=https", "for=192.0.2.1")).isEqualTo("192.0.2.1");
        assertThat(forwarded()).as("no header at all").isEqualTo(PROXY);
    }

    @Test
    void readsOnlyXForwardedForByDefaultSoAClientsOwnForwardedChoosesNothing() {
        assertThat(defaults.headerName()).isEqualTo("X-Forwarded-For");
        assertThat(behindForwardingProxies.headerName()).isEqualTo("Forwarded");
        assertThat(defaults.resolve(PROXY, List.of("for=192.0.2.60"))).as("Forwarded syntax is no address").isEqualTo(PROXY);
        assertThat(defaults.resolve(PROXY, List.of("203.0.113.7"))).isEqualTo("203.0.113.7");
    }

    @Test
    void keysIpv6ClientsByTheirSlash64SoOneClientCannotRotateThroughItsAddresses() {
        assertThat(defaults.resolve(PROXY, List.of("2001:db8:1:2:aaaa::1"))).isEqualTo("2001:db8:1:2::/64");
        assertThat(defaults.resolve(PROXY, List.of("2001:db8:1:2:bbbb:cccc:dddd:eeee"))).isEqualTo("2001:db8:1:2::/64");
        assertThat(defaults.resolve(PROXY, List.of("2001:db8:1:3::1"))).isEqualTo("2001:db8:1:3::/64");
        assertThat(defaults.resolve("2001:db8:9::1", List.of())).as("a direct IPv6 peer too").isEqualTo("2001:db8:9::/64");
        assertThat(defaults.resolve(PROXY, List.of("::ffff:203.0.113.7"))).as("IPv4-mapped stays IPv4")
                .isEqualTo("203.0.113.7");
    }

    @Test
    void theFullAddressFollowsTheSameProxyRulesButKeepsAnIpv6ClientWhole() {
        assertThat(defaults.resolveAddress(PROXY, List.of("2001:db8:1:2:aaaa::1"))).isEqualTo("2001:db8:1:2:aaaa::1");
        assertThat(defaults.resolveAddress(PROXY, List.of("203.0.113.7, 10.0.0.9"))).isEqualTo("203.0.113.7");
        assertThat(defaults.resolveAddress("192.0.2.9", List.of("203.0.113.7"))).as("untrusted peer")
                .isEqualTo("192.0.2.9");
        assertThat(defaults.resolveAddress("2001:DB8:9:0::1", List.of())).isEqualTo("2001:db8:9::1");
        assertThat(defaults.resolveAddress(PROXY, List.of("::ffff:203.0.113.7"))).isEqualTo("203.0.113.7");
        assertThat(defaults.resolveAddress("local", List.of())).as("not an IP literal").isEqualTo("local");
        assertThat(defaults.resolveAddress(null, List.of())).isEmpty();
    }

    @Test
    void keysAndExemptsIpv4ClientsBehindNat64ByTheirEmbeddedIpv4Address() {
        assertThat(defaults.resolve(PROXY, List.of("64:ff9b::c000:201"))).isEqualTo("192.0.2.1");
        assertThat(defaults.resolve(PROXY, List.of("64:ff9b::cb00:717"))).as("not the same /64 bucket")
                .isEqualTo("203.0.7.23");
        assertThat(defaults.resolveAddress(PROXY, List.of("[64:ff9b::c000:201]:4711"))).isEqualTo("192.0.2.1");
        assertThat(defaults.resolve("64:FF9B:0:0:0:0:c000:201", List.of())).as("a direct peer").isEqualTo("192.0.2.1");
        assertThat(defaults.resolve(PROXY, List.of("64:ff9b:1::c000:201"))).as("outside the /96")
                .isEqualTo("64:ff9b:1::/64");
        assertThat(defaults.resolve("64:ff9b::a00:1", List.of("198.51.100.1"))).as("a proxy behind NAT64 is trusted by"
                + " its IPv4 address").isEqualTo("198.51.100.1");
    }

    @Test
    void readsConfiguredNat64PrefixesBesideTheWellKnownOne() {
        ClientAddress configured = ClientAddress.of(SluiceConfigLoader.load(ConfigSources.of(
                Map.of("sluice.nat64-prefixes", "2001:db8:64::/96"))));
        assertThat(configured.resolve("2001:db8:64::c000:201", List.of())).isEqualTo("192.0.2.1");
        assertThat(configured.resolveAddress("2001:db8:64::cb00:717", List.of())).isEqualTo("203.0.7.23");
        assertThat(configured.resolve("64:ff9b::c000:201", List.of())).isEqualTo("192.0.2.1");
        assertThat(configured.resolve("2001:db8:65::c000:201", List.of())).isEqualTo("2001:db8:65::/64");
    }

    @Test
    void keysIpv6ClientsByTheConfiguredPrefix() {
        ClientAddress by48 = new ClientAddress(PROXIES, ForwardingHeader.X_FORWARDED_FOR, 48);
        assertThat(by48.resolve(PROXY, List.of("2001:db8:1:2::1"))).isEqualTo("2001:db8:1::/48");
        ClientAddress by57 = new ClientAddress(PROXIES, ForwardingHeader.X_FORWARDED_FOR, 57);
        assertThat(by57.resolve(PROXY, List.of("2001:db8:1:ffff::1"))).isEqualTo("2001:db8:1:ff80::/57");
        assertThat(behindProxies.resolve(PROXY, List.of("2001:db8:1:2::1"))).isEqualTo("2001:db8:1:2::1");
    }

    @Test
    void judgesTrustOnTheFullAddressNotTheKeyedNetwork() {
        ClientAddress oneProxy = new ClientAddress(List.of(Cidr.parse("sluice.trusted-proxies", "2001:db8::5")),
                ForwardingHeader.X_FORWARDED_FOR, 64);
        assertThat(oneProxy.resolve("2001:db8::6", List.of("203.0.113.7"))).as("a neighbour of the proxy is no proxy")
                .isEqualTo("2001:db8::/64");
        assertThat(oneProxy.resolve("2001:db8::5", List.of("203.0.113.7"))).isEqualTo("203.0.113.7");
    }
}
