package dev.sluice.internal.config;

import dev.sluice.SluiceConfigException;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code sluice.limit.<policy>.count}: which statuses and classes a list names, at their edges. */
class CountedStatusesTest {

    private static final String KEY = "sluice.limit.login.count";

    @Test
    void allChargesEveryRequestBeforeItRunsHoweverItIsSpelled() {
        for (String all : List.of("all", " ALL ", "All")) {
            CountedStatuses statuses = CountedStatuses.parse(KEY, all);
            assertThat(statuses).isSameAs(CountedStatuses.ALL);
            assertThat(statuses.all()).isTrue();
            assertThat(statuses.counts(200)).isTrue();
            assertThat(statuses.counts(-1)).as("even a status a response never has").isTrue();
        }
        assertThat(CountedStatuses.ALL).hasToString("all");
    }

    @Test
    void aClassNamesItsHundredStatusesAndNoOther() {
        for (int digit = 1; digit <= 5; digit++) {
            CountedStatuses statuses = CountedStatuses.parse(KEY, digit + "XX");
            int base = digit * 100;
            assertThat(statuses.all()).isFalse();
            assertThat(statuses.counts(base)).as("%dxx counts %d", digit, base).isTrue();
            assertThat(statuses.counts(base + 99)).as("%dxx counts %d", digit, base + 99).isTrue();
            assertThat(statuses.counts(base - 1)).as("%dxx does not count %d", digit, base - 1).isFalse();
            assertThat(statuses.counts(base + 100)).as("%dxx does not count %d", digit, base + 100).isFalse();
            assertThat(statuses).hasToString(digit + "xx");
        }
    }

    @Test
    void aStatusNamesItselfFrom100To599() {
        CountedStatuses statuses = CountedStatuses.parse(KEY, "100, 401,403 ,599");
        assertThat(statuses.counts(100)).isTrue();
        assertThat(statuses.counts(401)).isTrue();
        assertThat(statuses.counts(403)).isTrue();
        assertThat(statuses.counts(599)).isTrue();
        assertThat(statuses.counts(402)).isFalse();
        assertThat(statuses.counts(404)).isFalse();
        assertThat(statuses.counts(0)).isFalse();
        assertThat(statuses.counts(-1)).as("no status: never counted, never an error").isFalse();
        assertThat(statuses).hasToString("100,401,403,599");
    }

    @Test
    void listsNamingTheSameStatusesAreEqual() {
        assertThat(CountedStatuses.parse(KEY, "4xx")).isEqualTo(CountedStatuses.parse(KEY, "4xx,401"))
                .hasSameHashCodeAs(CountedStatuses.parse(KEY, "4xx,401"))
                .isNotEqualTo(CountedStatuses.parse(KEY, "5xx"))
                .isNotEqualTo(CountedStatuses.ALL)
                .isNotEqualTo("4xx");
        assertThat(CountedStatuses.ALL).isEqualTo(CountedStatuses.parse(KEY, "all"));
    }

    @Test
    void anythingElseFailsNamingTheKeyTheValueTheItemAndTheForm() {
        for (String bad : List.of("99", "600", "0xx", "6xx", "4x", "4xxx", "40x", "x00", "4O4", "1000", "abc", "-404",
                "+404")) {
            assertThatThrownBy(() -> CountedStatuses.parse(KEY, "401," + bad)).as(bad)
                    .isInstanceOfSatisfying(SluiceConfigException.class, e -> assertThat(e.key()).isEqualTo(KEY))
                    .hasMessageContaining("401," + bad)
                    .hasMessageContaining("has \"" + bad + "\", which is neither an HTTP status nor a status class")
                    .hasMessageContaining(CountedStatuses.FORM);
        }
        for (String empty : List.of("", " ", ",", " , ")) {
            assertThatThrownBy(() -> CountedStatuses.parse(KEY, empty)).as("'%s'", empty)
                    .isInstanceOfSatisfying(SluiceConfigException.class, e -> assertThat(e.key()).isEqualTo(KEY))
                    .hasMessageContaining(CountedStatuses.FORM);
        }
    }
}
