package dev.sluice.filter;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class QueryStringsTest {

    @Test
    void findsTheFirstValueDecoded() {
        assertThat(QueryStrings.first("a=1&tenant=ac%20me&tenant=other", "tenant")).contains("ac me");
        assertThat(QueryStrings.first("tenant=a+b", "tenant")).contains("a b");
        assertThat(QueryStrings.first("x=%E2%9C%93", "x")).contains("\u2713");
    }

    @Test
    void decodesNamesToo() {
        assertThat(QueryStrings.first("ten%61nt=acme", "tenant")).contains("acme");
    }

    @Test
    void givesTheEmptyValueForANameWithoutEquals() {
        assertThat(QueryStrings.first("flag&x=1", "flag")).contains("");
        assertThat(QueryStrings.first("x=1&flag", "flag")).contains("");
    }

    @Test
    void isEmptyWhenAbsent() {
        assertThat(QueryStrings.first(null, "x")).isEmpty();
        assertThat(QueryStrings.first("", "x")).isEmpty();
        assertThat(QueryStrings.first("xx=1&&=2&", "x")).isEmpty();
    }

    @Test
    void keepsAValueWithAMalformedEscapeUndecoded() {
        assertThat(QueryStrings.first("x=%zz%", "x")).contains("%zz%");
    }
}
