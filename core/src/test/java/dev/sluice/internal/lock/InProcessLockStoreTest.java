package dev.sluice.internal.lock;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The in-process stores on a clock the test moves: leases and tokens follow the store clock only. */
class InProcessLockStoreTest {

    private final AtomicLong micros = new AtomicLong(1_700_000_000_000_000L);
    private final ReleaseSignals signals = new ReleaseSignals();
    private final InProcessLockStore locks = new InProcessLockStore(micros::get, signals);
    private final InProcessSemaphoreStore semaphores = new InProcessSemaphoreStore(micros::get, signals);

    @Test
    void lockExpiresExactlyWhenItsLeaseHasPassedOnTheStoreClock() {
        assertThat(locks.tryLock("k", "a", 300).acquired()).isTrue();
        micros.addAndGet(299_999);
        Attempt refused = locks.tryLock("k", "b", 300);
        assertThat(refused.acquired()).isFalse();
        assertThat(refused.retryHintMillis()).isEqualTo(1);
        micros.addAndGet(1);
        assertThat(locks.tryLock("k", "b", 300).acquired()).isTrue();
        assertThat(locks.unlock("k", "a")).isFalse();
        assertThat(locks.extend("k", "a", 300)).isFalse();
    }

    @Test
    void tokensKeepIncreasingWhenTheClockStepsBack() {
        long first = locks.tryLock("k", "a", 10).fencingToken();
        locks.unlock("k", "a");
        micros.addAndGet(-60_000_000L);
        long second = locks.tryLock("k", "b", 10).fencingToken();
        assertThat(second).isGreaterThan(first);
    }

    @Test
    void tokensAreNotLowerThanTheClockSoAnExpiredCounterDoesNotRestartThem() {
        long first = locks.tryLock("k", "a", 10).fencingToken();
        assertThat(first).isEqualTo(micros.get());
        micros.addAndGet((InProcessLockStore.FENCE_TTL_MILLIS + 1) * 1000);
        long afterCounterExpired = locks.tryLock("k", "b", 10).fencingToken();
        assertThat(afterCounterExpired).isGreaterThan(first);
    }

    @Test
    void burstOfAcquisitionsWithinOneMicrosecondStillGetsDistinctTokens() {
        long previous = 0;
        for (int i = 0; i < 5; i++) {
            long token = locks.tryLock("k", "o" + i, 10).fencingToken();
            assertThat(token).isGreaterThan(previous);
            previous = token;
            locks.unlock("k", "o" + i);
        }
    }

    @Test
    void expiredPermitsAreReclaimedAtTheNextAcquisition() {
        assertThat(semaphores.tryAcquire("s", "p1", 1, 100).acquired()).isTrue();
        Attempt refused = semaphores.tryAcquire("s", "p2", 1, 100);
        assertThat(refused.acquired()).isFalse();
        assertThat(refused.retryHintMillis()).isEqualTo(100);
        micros.addAndGet(100_000);
        assertThat(semaphores.tryAcquire("s", "p2", 1, 100).acquired()).isTrue();
        assertThat(semaphores.release("s", "p1")).isFalse();
        assertThat(semaphores.extend("s", "p1", 100)).isFalse();
        assertThat(semaphores.release("s", "p2")).isTrue();
    }
}
