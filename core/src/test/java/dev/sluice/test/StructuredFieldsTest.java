package dev.sluice.test;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The test parser holds to RFC 9651 where the RateLimit fields need it (Integers of at most 15 digits, Strings,
 * Parameters, Lists), so that a header it accepts is one a real client's parser accepts. Cases from the RFC's
 * grammar and from the httpwg structured-field-tests suite.
 */
class StructuredFieldsTest {

    @Test
    void acceptsIntegersOfUpToFifteenDigitsAndNoMore() {
        assertThat(StructuredFields.parseList("999999999999999").get(0).value()).isEqualTo(999_999_999_999_999L);
        assertThat(StructuredFields.parseList("-999999999999999").get(0).value()).isEqualTo(-999_999_999_999_999L);
        assertThat(StructuredFields.parseList("000000000000001").get(0).value()).isEqualTo(1L);
        for (String bad : List.of("1000000000000000", "-1000000000000000", "0000000000000001", "- 1", "1e3", "+1")) {
            assertThatThrownBy(() -> StructuredFields.parseList(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void readsDecimalsWithinTheirLimits() {
        assertThat(StructuredFields.parseList("123456789012.123").get(0).value()).isEqualTo(new BigDecimal("123456789012.123"));
        for (String bad : List.of("1234567890123.1", "1.1234", "1.")) {
            assertThatThrownBy(() -> StructuredFields.parseList(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void readsStringsWithTheirTwoEscapesOnly() {
        assertThat(StructuredFields.parseList("\"a\\\"b\\\\c\"").get(0).value()).isEqualTo("a\"b\\c");
        for (String bad : List.of("\"a\\nb\"", "\"open", "\"tab\there\"", "\"caf\u00e9\"")) {
            assertThatThrownBy(() -> StructuredFields.parseList(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void readsParametersWithLowerCaseKeys() {
        StructuredFields.Item item = StructuredFields.parseList("\"p\";q=5;w=60;x").get(0);
        assertThat(item.parameters()).containsExactly(Map.entry("q", 5L), Map.entry("w", 60L), Map.entry("x", true));
        for (String bad : List.of("\"p\";Q=5", "\"p\";=5", "\"p\";q=", "\"p\";q=1000000000000000")) {
            assertThatThrownBy(() -> StructuredFields.parseList(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void readsListsAndRefusesTrailingCommas() {
        assertThat(StructuredFields.parseList("\"a\";q=1, \"b\";q=2")).hasSize(2);
        for (String bad : List.of("\"a\",", "\"a\" \"b\"", ",\"a\"")) {
            assertThatThrownBy(() -> StructuredFields.parseList(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
