package dev.sluice.internal.config;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Request data is read as an IP literal only up to {@value IpLiteral#MAX_LENGTH} characters (after trimming), so a
 * huge header value costs nothing to refuse; a zone id is the one part that makes a real literal that long.
 */
class IpLiteralLengthTest {

    private static final byte[] FE80_1 = {(byte) 0xfe, (byte) 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};

    private static String withZone(String prefix, String suffix, int length) {
        return prefix + "z".repeat(length - prefix.length() - suffix.length()) + suffix;
    }

    @Test
    void aLiteralOfTheLongestLengthIsRead() {
        String bare = withZone("fe80::1%", "", IpLiteral.MAX_LENGTH);
        String bracketed = withZone("[fe80::1%25", "]:8080", IpLiteral.MAX_LENGTH);
        assertThat(bare).hasSize(100);
        assertThat(bracketed).hasSize(100);

        assertThat(IpLiteral.parse(bare)).isEqualTo(FE80_1);
        assertThat(IpLiteral.parse(bracketed)).isEqualTo(FE80_1);
        assertThat(IpLiteral.parse("  " + bare + "  ")).as("measured after trimming").isEqualTo(FE80_1);
    }

    @Test
    void oneCharacterLongerIsNotALiteral() {
        assertThat(IpLiteral.parse(withZone("fe80::1%", "", IpLiteral.MAX_LENGTH + 1))).isNull();
        assertThat(IpLiteral.parse(withZone("[fe80::1%25", "]:8080", IpLiteral.MAX_LENGTH + 1))).isNull();
    }

    @Test
    void nothingAndBlanksAreNotLiterals() {
        assertThat(IpLiteral.parse(null)).isNull();
        assertThat(IpLiteral.parse("")).isNull();
        assertThat(IpLiteral.parse("   ")).isNull();
        assertThat(IpLiteral.parseBare("")).isNull();
    }
}
