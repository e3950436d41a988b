package dev.sluice.internal.config;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The "did you mean" hint for a misspelt key: close enough to help, never a wild guess. */
class KeySuggestionsTest {

    @Test
    void distanceCountsInsertionsDeletionsAndSubstitutions() {
        assertThat(KeySuggestions.distance("rate", "rate")).isZero();
        assertThat(KeySuggestions.distance("", "abc")).isEqualTo(3);
        assertThat(KeySuggestions.distance("abc", "")).isEqualTo(3);
        assertThat(KeySuggestions.distance("kitten", "sitting")).isEqualTo(3);
        assertThat(KeySuggestions.distance("rate", "rat")).isEqualTo(1);
        assertThat(KeySuggestions.distance("rat", "rate")).isEqualTo(1);
        assertThat(KeySuggestions.distance("burst", "brust")).as("a swap is two substitutions").isEqualTo(2);
        assertThat(KeySuggestions.distance("flaw", "lawn")).isEqualTo(2);
    }

    @Test
    void suggestsTheNearestKnownKey() {
        assertThat(KeySuggestions.nearest("sluice.redis.url", List.of("sluice.redis.uri", "sluice.redis.user"),
                List.of())).contains("sluice.redis.uri");
    }

    @Test
    void ofTwoKeysAsNearTheFirstListedIsSuggested() {
        assertThat(KeySuggestions.nearest("sluice.redis.ur", List.of("sluice.redis.uri", "sluice.redis.urn"),
                List.of())).contains("sluice.redis.uri");
        assertThat(KeySuggestions.nearest("sluice.redis.ur", List.of("sluice.redis.urn", "sluice.redis.uri"),
                List.of())).contains("sluice.redis.urn");
    }

    @Test
    void aLongKeyMayBeThreeEditsAwayButNotFour() {
        List<String> known = List.of("sluice.redis.password");
        assertThat(KeySuggestions.nearest("sluice.redis.pasword", known, List.of())).isPresent();
        assertThat(KeySuggestions.nearest("sluice.redis.pswrd", known, List.of())).as("3 edits")
                .contains("sluice.redis.password");
        assertThat(KeySuggestions.nearest("sluice.redis.pswd", known, List.of())).as("4 edits").isEmpty();
    }

    @Test
    void aShortKeyMayBeOnlyAThirdOfItsLengthAway() {
        // 6 characters: at most 2 edits.
        assertThat(KeySuggestions.nearest("rxtxxx", List.of("ratxxx"), List.of())).as("1 edit").isPresent();
        assertThat(KeySuggestions.nearest("rxtxyx", List.of("ratxxx"), List.of())).as("2 edits").isPresent();
        assertThat(KeySuggestions.nearest("rxtyyx", List.of("ratxxx"), List.of())).as("3 edits").isEmpty();
        // 2 characters: a third is 0, yet one edit is still suggested.
        assertThat(KeySuggestions.nearest("ab", List.of("ac"), List.of())).contains("ac");
        assertThat(KeySuggestions.nearest("ab", List.of("cd"), List.of())).isEmpty();
    }

    @Test
    void aMisspeltFamilyIsComparedWithTheSameNameInEachKnownFamily() {
        List<String> families = List.of("sluice.limit.", "sluice.lock.");
        assertThat(KeySuggestions.nearest("sluice.limits.api.rate", List.of(), families))
                .contains("sluice.limit.api.rate");
        assertThat(KeySuggestions.nearest("sluice.locks.orders.lease", List.of(), families))
                .contains("sluice.lock.orders.lease");
        assertThat(KeySuggestions.nearest("sluice.limits", List.of(), families)).as("no name after the family")
                .isEmpty();
    }

    @Test
    void nothingKnownNothingSuggested() {
        assertThat(KeySuggestions.nearest("sluice.redis.uri", List.of(), List.of())).isEmpty();
    }
}
