package dev.sluice.internal.http;

import dev.sluice.internal.config.Cidr;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ClientAddressTest {

    private static final String PROXY = "10.0.0.1";

    private final ClientAddress behindProxies = new ClientAddress(List.of(
            Cidr.parse("sluice.trusted-proxies", "10.0.0.0/8"),
            Cidr.parse("sluice.trusted-proxies", "fd00::/8")));
    private final ClientAddress direct = new ClientAddress(List.of());

    private String xff(String... lines) {
        return behindProxies.resolve(PROXY, List.of(), Arrays.asList(lines));
    }

    private String forwarded(String... lines) {
        return behindProxies.resolve(PROXY, Arrays.asList(lines), List.of());
    }

    @Test
    void ignoresForwardingHeadersWhenNoProxyIsTrusted() {
        assertThat(direct.resolve("192.0.2.9", List.of("for=203.0.113.7"), List.of("203.0.113.7"))).isEqualTo("192.0.2.9");
    }

    @Test
    void ignoresForwardingHeadersFromAnUntrustedPeer() {
        assertThat(behindProxies.resolve("192.0.2.9", List.of("for=203.0.113.7"), List.of("203.0.113.7")))
                .isEqualTo("192.0.2.9");
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
    void stopsAtAHopTheTrustedProxyCouldNotNameAndBlamesThatProxy() {
        assertThat(xff("203.0.113.7, unknown")).isEqualTo(PROXY);
        assertThat(xff("203.0.113.7, unknown, 10.0.0.2")).isEqualTo("10.0.0.2");
        assertThat(forwarded("for=203.0.113.7, for=_hidden")).isEqualTo(PROXY);
        assertThat(forwarded("for=203.0.113.7, for=unknown")).isEqualTo(PROXY);
        assertThat(forwarded("for=203.0.113.7, by=10.0.0.1")).isEqualTo(PROXY);
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
        assertThat(xff("64:ff9b::192.0.2.33")).isEqualTo("64:ff9b::c000:221");
    }

    @Test
    void dropsZoneIds() {
        assertThat(xff("fe80::1%eth0")).isEqualTo("fe80::1");
        assertThat(xff("[fe80::1%25eth0]:80")).isEqualTo("fe80::1");
    }

    @Test
    void readsIpv4MappedIpv6AsIpv4() {
        assertThat(xff("::ffff:203.0.113.7")).isEqualTo("203.0.113.7");
        assertThat(direct.resolve("::ffff:192.0.2.1", List.of(), List.of())).isEqualTo("192.0.2.1");
    }

    @Test
    void trustsIpv6Proxies() {
        assertThat(behindProxies.resolve("[fd00::5]", List.of(), List.of("2001:db8::7"))).isEqualTo("2001:db8::7");
        assertThat(behindProxies.resolve("fd00:0:0:0:0:0:0:5", List.of(), List.of("2001:db8::7"))).isEqualTo("2001:db8::7");
        assertThat(behindProxies.isTrustedProxy("[fd00::1]:443")).isTrue();
        assertThat(behindProxies.isTrustedProxy("2001:db8::1")).isFalse();
    }

    @Test
    void returnsAPeerThatIsNoAddressAsItIs() {
        assertThat(behindProxies.resolve("unix:/run/socket", List.of(), List.of("203.0.113.7"))).isEqualTo("unix:/run/socket");
        assertThat(behindProxies.resolve(null, List.of(), List.of())).isEmpty();
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

    @Test
    void prefersForwardedOverXForwardedFor() {
        assertThat(behindProxies.resolve(PROXY, List.of("for=192.0.2.60"), List.of("203.0.113.7"))).isEqualTo("192.0.2.60");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "for=192.0.2.60;for=192.0.2.61", "for=\"192.0.2.60", "for=192.0.2.60 junk", "for", "for=",
        "=192.0.2.60", "for=192.0.2.60;;=x", "f@r=192.0.2.60", "for=\"192.0.2.60\"x", "for=\"a\u0000b\"",
        "for=192.0.2.60\u0001", "for=\"192.0.2.60\\", "proto=https"
    })
    void ignoresAMalformedForwardedHeaderAndUsesXForwardedFor(String header) {
        assertThat(behindProxies.resolve(PROXY, List.of(header), List.of("203.0.113.7"))).isEqualTo("203.0.113.7");
        assertThat(behindProxies.resolve(PROXY, List.of(header), List.of())).isEqualTo(PROXY);
    }

    @Test
    void boundsTheWorkOnHugeHeaders() {
        String spoofed = "198.51.100.1, ".repeat(20_000);
        assertThat(xff(spoofed + "203.0.113.7")).isEqualTo("203.0.113.7");
        String trustedChain = "10.0.0.7, ".repeat(20_000);
        assertThat(xff("203.0.113.7, " + trustedChain + "10.0.0.2"))
                .as("the walk stops after MAX_HOPS trusted hops at the last trusted one").isEqualTo("10.0.0.7");
        String hugeForwarded = "for=198.51.100.1, ".repeat(1_000) + "for=192.0.2.60";
        assertThat(behindProxies.resolve(PROXY, List.of(hugeForwarded), List.of("203.0.113.7")))
                .as("a Forwarded header beyond the size bound is ignored").isEqualTo("203.0.113.7");
    }

    @Test
    void readsOnlyTheNearestHopsOfAManyLineHeader() {
        String[] lines = new String[1000];
        Arrays.fill(lines, "10.0.0.9");
        lines[999] = "203.0.113.7";
        assertThat(xff(lines)).isEqualTo("203.0.113.7");
    }
}
