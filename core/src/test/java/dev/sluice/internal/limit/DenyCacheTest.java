package dev.sluice.internal.limit;

import dev.sluice.RateLimitDecision;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class DenyCacheTest {

    private final AtomicLong nanos = new AtomicLong(5_000_000_000L);
    private static final Object SHAPE = "5/1m";
    private final DenyCache cache = new DenyCache(10, nanos::get);

    private static RateLimitDecision refused(long retryMillis) {
        return RateLimitDecision.of("p", false, 0, 5, 60, retryMillis, 60_000);
    }

    private void advanceMillis(long millis) {
        nanos.addAndGet(millis * 1_000_000L);
    }

    @Test
    void aRefusalHoldsForTheSameOrALargerCostUntilItsDeadline() {
        cache.remember("k", SHAPE, 2, refused(1_000));
        assertThat(cache.refusal("k", SHAPE, 2).retryAfterMillis()).isEqualTo(1_000);
        assertThat(cache.refusal("k", SHAPE, 3)).as("a larger cost cannot pass earlier").isNotNull();
        assertThat(cache.refusal("k", SHAPE, 1)).as("a smaller cost may pass earlier: ask").isNull();
        advanceMillis(999);
        assertThat(cache.refusal("k", SHAPE, 2).retryAfterMillis()).isEqualTo(1);
        assertThat(cache.refusal("k", SHAPE, 2).resetMillis()).isEqualTo(60_000 - 999);
        advanceMillis(1);
        assertThat(cache.refusal("k", SHAPE, 2)).isNull();
        assertThat(cache.size()).as("expired entries leave when looked at").isZero();
    }

    @Test
    void aLongRefusalIsTrustedForFiveSecondsOnlyAndStillTellsItsWholeWait() {
        cache.remember("k", SHAPE, 1, refused(3_600_000));
        advanceMillis(DenyCache.MAX_TRUST_MILLIS - 1);
        assertThat(cache.refusal("k", SHAPE, 1).retryAfterMillis())
                .isEqualTo(3_600_000 - DenyCache.MAX_TRUST_MILLIS + 1);
        advanceMillis(1);
        assertThat(cache.refusal("k", SHAPE, 1)).as("asked again: the bucket may have been deleted by hand").isNull();
    }

    @Test
    void aForgottenRefusalIsAskedAgain() {
        cache.remember("k", SHAPE, 1, refused(60_000));
        cache.remember("other", SHAPE, 1, refused(60_000));
        cache.forget("k");
        assertThat(cache.refusal("k", SHAPE, 1)).isNull();
        assertThat(cache.refusal("other", SHAPE, 1)).isNotNull();
    }

    @Test
    void neverRemembersAdmissionsOrRequestsThatCanNeverPass() {
        cache.remember("a", SHAPE, 1, RateLimitDecision.of("p", true, 3, 5, 60, 0, 1_000));
        cache.remember("b", SHAPE, 1, refused(RateLimitDecision.NEVER));
        assertThat(cache.size()).isZero();
    }

    @Test
    void staysWithinItsSize() {
        for (int i = 0; i < 100; i++) {
            cache.remember("k" + i, SHAPE, 1, refused(60_000));
            assertThat(cache.size()).isLessThanOrEqualTo(10);
        }
        assertThat(cache.refusal("k99", SHAPE, 1)).as("the newest refusal is kept").isNotNull();
    }

    @Test
    void expiredEntriesMakeRoomFirst() {
        for (int i = 0; i < 10; i++) {
            cache.remember("old" + i, SHAPE, 1, refused(10));
        }
        cache.remember("live", SHAPE, 1, refused(60_000));
        advanceMillis(20);
        for (int i = 0; i < 9; i++) {
            cache.remember("new" + i, SHAPE, 1, refused(60_000));
        }
        assertThat(cache.refusal("live", SHAPE, 1)).isNotNull();
    }

    @Test
    void aRefusalUnderOtherLimitsSaysNothing() {
        cache.remember("k", SHAPE, 1, refused(1_000));
        assertThat(cache.refusal("k", "50/1m", 1)).isNull();
    }

    @Test
    void sizeZeroSwitchesItOff() {
        DenyCache off = new DenyCache(0, nanos::get);
        off.remember("k", SHAPE, 1, refused(1_000));
        assertThat(off.refusal("k", SHAPE, 1)).isNull();
        assertThat(off.size()).isZero();
    }
    @Test
    void aFullCacheForgetsOnlyATenthOfItsRefusalsToMakeRoom() {
        for (int i = 0; i < 100; i++) {
            cache.remember("k" + i, SHAPE, 1, refused(60_000));
            int remembered = 0;
            for (int j = 0; j <= i; j++) {
                remembered += cache.refusal("k" + j, SHAPE, 1) != null ? 1 : 0;
            }
            assertThat(remembered).as("after %d refusals", i + 1).isBetween(Math.min(i + 1, 9), 10);
        }
    }
}
