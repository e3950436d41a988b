package dev.sluice.internal.lease;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The in-process permit set both in-process stores keep: a lease runs out at its instant. */
class PermitSetTest {

    private final PermitSet set = new PermitSet();

    @Test
    void aLeaseRunsOutAtItsInstantAndIsReclaimed() {
        set.grant("a", 100);
        set.grant("b", 200);
        assertThat(set.earliest()).isEqualTo(100);
        assertThat(set.latest()).isEqualTo(200);
        set.reclaim(99);
        assertThat(set.size()).isEqualTo(2);
        set.reclaim(100);
        assertThat(set.holds("a")).isFalse();
        assertThat(set.holds("b")).isTrue();
    }

    @Test
    void aRenewalOfARunOutLeaseRemovesItAndAReturnSaysWhetherItWasLive() {
        set.grant("a", 100);
        assertThat(set.extend("a", 99, 300)).isTrue();
        assertThat(set.latest()).isEqualTo(300);
        assertThat(set.extend("a", 300, 400)).as("ran out at 300").isFalse();
        assertThat(set.isEmpty()).isTrue();
        assertThat(set.extend("nobody", 0, 10)).isFalse();

        set.grant("b", 100);
        assertThat(set.remove("b", 100)).as("ran out").isFalse();
        set.grant("c", 100);
        assertThat(set.remove("c", 99)).isTrue();
        assertThat(set.remove("c", 0)).as("already returned").isFalse();
        assertThat(set.isEmpty()).isTrue();
    }
}
