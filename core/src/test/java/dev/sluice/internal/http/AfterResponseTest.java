package dev.sluice.internal.http;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What is left to do after the response: run once, in order, each action whatever the others did. */
class AfterResponseTest {

    @Test
    void actionsRunOnceInOrderWithTheStatusAndAFailingOneKeepsNoOtherFromRunning() {
        List<String> ran = new ArrayList<>();
        AfterResponse after = AfterResponse.of(status -> ran.add("charge " + status))
                .and(status -> {
                    throw new IllegalStateException("store down");
                })
                .and(status -> ran.add("release " + status));
        assertThat(after.isEmpty()).isFalse();
        after.completed(503);
        after.completed(200);
        assertThat(ran).containsExactly("charge 503", "release 503");
    }

    @Test
    void nothingToDoIsEmptyAndStaysEmpty() {
        assertThat(AfterResponse.of(null)).isSameAs(AfterResponse.NONE);
        assertThat(AfterResponse.NONE.isEmpty()).isTrue();
        List<Integer> ran = new ArrayList<>();
        AfterResponse one = AfterResponse.NONE.and(ran::add);
        assertThat(one.isEmpty()).isFalse();
        assertThat(AfterResponse.NONE.isEmpty()).isTrue();
        AfterResponse.NONE.completed(200);
        one.completed(429);
        assertThat(ran).containsExactly(429);
    }
}
