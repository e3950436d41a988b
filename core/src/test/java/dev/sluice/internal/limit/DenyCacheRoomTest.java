package dev.sluice.internal.limit;

import dev.sluice.RateLimitDecision;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** How many refusals the deny cache holds: what it counts, what it refuses to hold, what it drops when full. */
class DenyCacheRoomTest {

    private static final Object SHAPE = "5/1m";

    private final AtomicLong nanos = new AtomicLong(5_000_000_000L);
    private final DenyCache cache = new DenyCache(10, nanos::get);

    private static RateLimitDecision refused(long retryMillis) {
        return RateLimitDecision.of("p", false, 0, 5, 60, retryMillis, 60_000);
    }

    @Test
    void itCountsTheRefusalsItHoldsAndForgetsThemAllWhenCleared() {
        for (int i = 0; i < 3; i++) {
            cache.remember("k" + i, SHAPE, 1, refused(1_000));
        }
        assertThat(cache.size()).isEqualTo(3);
        cache.clear();
        assertThat(cache.size()).isZero();
        assertThat(cache.refusal("k0", SHAPE, 1)).isNull();
    }

    @Test
    void aRefusalWithNothingToWaitForIsNotHeld() {
        cache.remember("k", SHAPE, 1, refused(0));
        assertThat(cache.size()).isZero();
    }

    @Test
    void whenFullOneTenthLeavesToMakeRoomAndNoMore() {
        for (int i = 0; i < 10; i++) {
            cache.remember("k" + i, SHAPE, 1, refused(60_000));
        }
        cache.remember("new", SHAPE, 1, refused(60_000));
        assertThat(cache.size()).isEqualTo(10);
        assertThat(cache.refusal("new", SHAPE, 1)).isNotNull();
    }

    @Test
    void whenFullEntriesEndingThisVeryNanosecondLeaveFirst() {
        for (int i = 0; i < 10; i++) {
            cache.remember("k" + i, SHAPE, 1, refused(1_000));
        }
        nanos.addAndGet(1_000_000_000L);
        cache.remember("new", SHAPE, 1, refused(60_000));
        assertThat(cache.size()).as("the ten expired ones are gone, no live one had to go").isEqualTo(1);
    }

    @Test
    void theFirstRememberedRefusalRunsTheActionOnceAndAnActionSetAfterItRunsAtOnce() {
        java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();
        cache.onFirstRefusal(runs::incrementAndGet);
        cache.remember("k", SHAPE, 1, refused(0));
        assertThat(runs).as("a refusal not held is no first refusal").hasValue(0);

        cache.remember("k1", SHAPE, 1, refused(1_000));
        cache.remember("k2", SHAPE, 1, refused(1_000));
        assertThat(runs).as("once, on the first").hasValue(1);

        java.util.concurrent.atomic.AtomicInteger late = new java.util.concurrent.atomic.AtomicInteger();
        cache.onFirstRefusal(late::incrementAndGet);
        assertThat(late).as("set after the first refusal: at once").hasValue(1);
        cache.remember("k3", SHAPE, 1, refused(1_000));
        assertThat(late).hasValue(1);

        DenyCache fresh = new DenyCache(10, nanos::get);
        java.util.concurrent.atomic.AtomicInteger none = new java.util.concurrent.atomic.AtomicInteger();
        fresh.onFirstRefusal(none::incrementAndGet);
        assertThat(none).as("nothing remembered yet: not at once").hasValue(0);
    }
}
