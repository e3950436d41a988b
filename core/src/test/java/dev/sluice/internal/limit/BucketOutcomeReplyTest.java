package dev.sluice.internal.limit;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Reading {@code gcra.lua}'s reply, and the mode numbers the script reads. */
class BucketOutcomeReplyTest {

    @Test
    void aReplyOfTwoRequestsIsReadFiveIntegersAtATime() {
        List<BucketOutcome> outcomes = BucketOutcome.fromReply(List.of(1L, 4L, 0L, 0L, 250_000L,
                0L, 0L, 1L, 1_000_000L, 2_000_000L), 2);
        assertThat(outcomes).containsExactly(new BucketOutcome(true, 4, 0, 0, 250_000),
                new BucketOutcome(false, 0, 1, 1_000_000, 2_000_000));
    }

    @Test
    void aReplyOfAnotherShapeIsRefused() {
        assertThatThrownBy(() -> BucketOutcome.fromReply(List.of(1L, 4L, 0L, 0L, 0L), 2))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("expected 10 integers");
        assertThatThrownBy(() -> BucketOutcome.fromReply(List.of(1L, 4L, 0L, "0", 0L), 1))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> BucketOutcome.fromReply("OK", 1)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void eachModeHasTheNumberTheScriptReads() {
        assertThat(List.of(ChargeMode.values()).stream().map(ChargeMode::code).toList())
                .containsExactly(0, 1, 2, 3, 4, 5, 6);
    }
}
