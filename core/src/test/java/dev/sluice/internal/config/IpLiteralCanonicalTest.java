package dev.sluice.internal.config;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link IpLiteral#isCanonicalIpv4} says yes exactly when parsing and writing the text again gives it back as an
 * IPv4 address, since the client-address rules then return the text without parsing it.
 */
class IpLiteralCanonicalTest {

    private static boolean roundTrips(String text) {
        byte[] address = IpLiteral.parse(text);
        return address != null && address.length == 4 && IpLiteral.format(address).equals(text);
    }

    @Test
    void agreesWithParseAndFormat() {
        List<String> texts = List.of("127.0.0.1", "0.0.0.0", "255.255.255.255", "10.1.2.3", "192.168.100.200",
                "256.0.0.1", "1.2.3.4.5", "1.2.3", "01.2.3.4", "1.02.3.4", "1.2.3.00", "1.2.3.", ".1.2.3",
                "1..2.3", " 1.2.3.4", "1.2.3.4 ", "1.2.3.4:80", "::1", "::ffff:1.2.3.4", "[1.2.3.4]", "a.b.c.d",
                "1.2.3.1000", "1234.2.3.4", "", "unknown", "1.2.3.-4", "9.9.9.9");
        for (String text : texts) {
            assertThat(IpLiteral.isCanonicalIpv4(text)).as(text).isEqualTo(roundTrips(text));
        }
        assertThat(IpLiteral.isCanonicalIpv4(null)).isFalse();
    }

    @Test
    void everyOctetValue() {
        for (int v = 0; v < 300; v++) {
            String text = "1." + v + ".3." + v;
            assertThat(IpLiteral.isCanonicalIpv4(text)).as(text).isEqualTo(roundTrips(text));
            String padded = "1.0" + v + ".3.4";
            assertThat(IpLiteral.isCanonicalIpv4(padded)).as(padded).isEqualTo(roundTrips(padded));
        }
    }
}
