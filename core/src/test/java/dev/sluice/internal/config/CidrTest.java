package dev.sluice.internal.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetAddress;
import java.net.UnknownHostException;

import static dev.sluice.internal.config.Rejections.rejects;
import static org.assertj.core.api.Assertions.assertThat;

class CidrTest {

    private static final String KEY = "sluice.trusted-proxies";

    private static Cidr cidr(String text) {
        return Cidr.parse(KEY, text);
    }

    private static InetAddress ip(String literal) throws UnknownHostException {
        return InetAddress.getByName(literal); // test input is always a literal: no lookup
    }

    private static String refused(String value) {
        return rejects(() -> Cidr.parse(KEY, value), KEY, "\"" + value + "\"");
    }

    @Test
    void matchesOnPrefixesThatAreNoWholeOctet() throws Exception {
        Cidr twelve = cidr("172.16.0.0/12");
        assertThat(twelve.contains(ip("172.16.0.1"))).isTrue();
        assertThat(twelve.contains(ip("172.31.255.255"))).isTrue();
        assertThat(twelve.contains(ip("172.32.0.1"))).isFalse();
        assertThat(twelve.contains(ip("172.15.255.255"))).isFalse();

        Cidr twentyThree = cidr("192.168.2.0/23");
        assertThat(twentyThree.contains(ip("192.168.3.255"))).isTrue();
        assertThat(twentyThree.contains(ip("192.168.4.0"))).isFalse();
        assertThat(twentyThree.contains(ip("192.168.1.255"))).isFalse();

        Cidr host = cidr("10.0.0.255/32");
        assertThat(host.contains(ip("10.0.0.255"))).isTrue();
        assertThat(host.contains(ip("10.0.0.254"))).isFalse();

        Cidr v6 = cidr("2001:db8:8000::/33");
        assertThat(v6.contains(ip("2001:db8:ffff::1"))).isTrue();
        assertThat(v6.contains(ip("2001:db8:7fff::1"))).isFalse();
    }

    @Test
    void acceptsOctet255AndBareAddresses() throws Exception {
        assertThat(cidr("255.255.255.255").contains(ip("255.255.255.255"))).isTrue();
        assertThat(cidr("10.255.0.0/16").contains(ip("10.255.1.2"))).isTrue();
        assertThat(cidr("::1").contains(ip("::1"))).isTrue();
        assertThat(cidr(" 10.0.0.0/8 ").toString()).isEqualTo("10.0.0.0/8");
    }

    @Test
    void neverMatchesAcrossAddressFamilies() throws Exception {
        assertThat(cidr("10.0.0.0/8").contains(ip("fd00::a00:1"))).isFalse();
        assertThat(cidr("fd00::/8").contains(ip("10.0.0.1"))).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "256.0.0.0/8", "1.2.3.256", "010.0.0.0/8", "10.0.0.01", "10.0.0.0/08", "10.0.0.0/+8", "10.0.0.0/-1",
        "10.0.0.0/", "10.0.0.0/8/8", "10.0.0.0/ 8", "1.2.3", "1.2.3.4.5", "0x0a.0.0.0/8", "proxy.local",
        "localhost", "10.0.0.0/33", "::1/129", "[::1]/128", "fe80::1%eth0/64", "10.0.0.1:80", "g::1",
        "\u0661\u0660.0.0.0/8", "1.2.3.4/\u0668"
    })
    void refusesAnythingButAnIpLiteralWithADecimalPrefix(String value) {
        assertThat(refused(value)).contains("10.0.0.0/8");
    }

    @ParameterizedTest
    @ValueSource(strings = {"0.0.0.0/0", "::/0", "10.0.0.0/0"})
    void refusesARangeThatTrustsEveryoneAndSaysWhy(String value) {
        assertThat(refused(value)).contains("any client could choose its own key");
    }

    @Test
    void explainsIpv4MappedRangesWithoutTheIpv4PrefixRange() {
        String message = refused("::ffff:10.0.0.0/104");
        assertThat(message).doesNotContain("0..32").contains("10.0.0.0/8");
    }
    @Test
    void suggestsTheIpv4RangeThatAnIpv4MappedRangeMeans() {
        assertThat(refused("::ffff:192.168.0.0/112")).contains("write this range as 192.168.0.0/16");
        assertThat(refused("::ffff:192.168.0.0/80")).contains("write this range as the IPv4 range");
    }

    @Test
    void readsPrefixLengthsWithTheDigitsZeroAndNine() throws Exception {
        Cidr ten = cidr("10.64.0.0/10");
        assertThat(ten.contains(ip("10.127.255.255"))).isTrue();
        assertThat(ten.contains(ip("10.128.0.0"))).isFalse();
        Cidr twentyNine = cidr("10.0.0.8/29");
        assertThat(twentyNine.contains(ip("10.0.0.15"))).isTrue();
        assertThat(twentyNine.contains(ip("10.0.0.16"))).isFalse();
        assertThat(cidr("2001:db8::/90").contains(ip("2001:db8::3f:ffff:ffff"))).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"10.0.0.0/x", "10.0.0.0/33", "10.0.0.0/", "10.0.0.0/1000"})
    void aMalformedPrefixIsExplainedAsSuchNotAsATrustEveryoneRange(String value) {
        assertThat(refused(value)).contains("decimal prefix length").doesNotContain("any client could");
    }
    @Test
    void rangesAreEqualWhenTheyCoverTheSameAddresses() {
        assertThat(cidr("10.1.2.3/8")).isEqualTo(cidr("10.0.0.0/8")).hasSameHashCodeAs(cidr("10.0.0.0/8"));
        assertThat(cidr("10.0.0.0/8")).isNotEqualTo(cidr("10.0.0.0/9")).isNotEqualTo(cidr("11.0.0.0/8"))
                .isNotEqualTo("10.0.0.0/8");
    }
}
