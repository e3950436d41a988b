package dev.sluice.internal.http;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The exact JSON string literal of a value: escaped where it must be, as written everywhere else. */
class ProblemDetailsQuoteTest {

    @Test
    void printableTextIsWrittenAsItIs() {
        assertThat(ProblemDetails.quote("")).isEqualTo("\"\"");
        String printable = " a/b ~ caf\u00e9 \u0080\u2027\u202a";
        assertThat(ProblemDetails.quote(printable)).isEqualTo('"' + printable + '"');
    }

    @Test
    void quotesBackslashesAndTheShortEscapes() {
        assertThat(ProblemDetails.quote("\"\\\n\r\t\b\f")).isEqualTo("\"\\\"\\\\\\n\\r\\t\\b\\f\"");
    }

    @Test
    void otherControlCharactersDelAndLineSeparatorsAreUnicodeEscapes() {
        assertThat(ProblemDetails.quote("\u0000\u001f\u007f\u2028\u2029"))
                .isEqualTo("\"\\u0000\\u001f\\u007f\\u2028\\u2029\"");
    }

    @Test
    void aSurrogatePairIsKeptAndAnUnpairedSurrogateEscapedWhereverItStands() {
        assertThat(ProblemDetails.quote("\ud83d\ude00")).isEqualTo("\"\ud83d\ude00\"");
        assertThat(ProblemDetails.quote("a\ud83d")).as("a high surrogate at the end").isEqualTo("\"a\\ud83d\"");
        assertThat(ProblemDetails.quote("\ude00\ud83d")).as("the wrong order").isEqualTo("\"\\ude00\\ud83d\"");
        assertThat(ProblemDetails.quote("\ud83dx")).isEqualTo("\"\\ud83dx\"");
    }
}
