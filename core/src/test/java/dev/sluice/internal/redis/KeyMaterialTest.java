package dev.sluice.internal.redis;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The part of a Redis key made from request data: readable when harmless, a fixed-size hash otherwise. */
class KeyMaterialTest {

    @ParameterizedTest
    @ValueSource(strings = {"a", "z", "A", "Z", "0", "9", ".", "_", ":", "@", "/", "-", "203.0.113.7",
            "2001:db8::1", "alice@example.org", "key_id-7/v2"})
    void keepsValuesOfTheReadableAlphabetAsTheyAre(String value) {
        assertThat(KeyMaterial.of(value)).isEqualTo(value);
    }

    /** The characters either side of each range of the alphabet, and the ones that would alter a key. */
    @ParameterizedTest
    @ValueSource(strings = {"`", "{", "[", "}", "!", ",", ";", "a b", "a\r\nb", "é", "user{tag}", "x\u0000"})
    void hashesValuesWithAnyOtherCharacter(String value) {
        assertThat(KeyMaterial.of(value)).matches("#[A-Za-z0-9_-]{22}");
    }

    @Test
    void keepsSixtyFourCharactersAndHashesSixtyFive() {
        assertThat(KeyMaterial.of("a".repeat(KeyMaterial.MAX_VERBATIM))).isEqualTo("a".repeat(64));
        assertThat(KeyMaterial.of("a".repeat(65))).isEqualTo("#Y1NhxIu56rFBmOduqKt_Gk");
    }

    @Test
    void hashesTheEmptyValueSoThatItIsNotAnEmptyKeyPart() {
        assertThat(KeyMaterial.of("")).isEqualTo("#47DEQpj8HBSa-_TImW-5JC");
    }

    @Test
    void theHashIsTheStartOfTheBase64urlSha256OfTheUtf8Bytes() {
        assertThat(KeyMaterial.of("hello world")).isEqualTo("#uU0nuZNNPgilLlLX2n2r-s");
        assertThat(KeyMaterial.of("?!")).isNotEqualTo(KeyMaterial.of("?"));
        assertThat(KeyMaterial.of("\uD83D\uDE00")).as("a surrogate pair is one code point, hashed as UTF-8")
                .isEqualTo("#8EQ6NCxe9UeDoRG1G6Vsk4");
    }

    @Test
    void unpairedSurrogatesGetBucketsOfTheirOwnInsteadOfSharingTheQuestionMarksOne() {
        assertThat(KeyMaterial.of("?")).isEqualTo("#io3oI9XtPhJ0amLvFpvPNy");
        assertThat(KeyMaterial.of("\uD800")).as("one lone surrogate and another").isNotEqualTo(KeyMaterial.of("\uDBFF"))
                .isNotEqualTo(KeyMaterial.of("\uDC00")).isNotEqualTo(KeyMaterial.of("?"));
        assertThat(KeyMaterial.of("\uD800")).as("a lone high surrogate").isEqualTo("#nsI9eadDDaGC06e2TE1T5p");
        assertThat(KeyMaterial.of("\uDC00")).as("a lone low surrogate").isEqualTo("#_3p-vaeD8Em2vB5O_fcqLz");
        assertThat(KeyMaterial.of("a\uD800")).as("a high surrogate at the end").isEqualTo("#Z040HeMVyZ61qpTKW_CNEp");
        assertThat(KeyMaterial.of("\uDC00\uD800")).as("a pair in the wrong order")
                .isNotEqualTo(KeyMaterial.of("??")).isNotEqualTo(KeyMaterial.of("\uD800\uDC00"));
    }
}
