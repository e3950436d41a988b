package dev.sluice.internal.redis;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class CircuitBreakerTest {

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final CircuitBreaker breaker = new CircuitBreaker(3, Duration.ofSeconds(1), nanos::get, "Redis at test");

    private void advanceMillis(long millis) {
        nanos.addAndGet(millis * 1_000_000L);
    }

    @Test
    void staysClosedUntilTheThresholdOfConsecutiveFailures() {
        breaker.onFailure();
        breaker.onFailure();
        assertThat(breaker.isOpen()).isFalse();
        assertThat(breaker.tryAcquire()).isTrue();
        breaker.onFailure();
        assertThat(breaker.isOpen()).isTrue();
        assertThat(breaker.tryAcquire()).isFalse();
    }

    @Test
    void aSuccessResetsTheFailureCount() {
        breaker.onFailure();
        breaker.onFailure();
        breaker.onSuccess();
        breaker.onFailure();
        breaker.onFailure();
        assertThat(breaker.isOpen()).isFalse();
    }

    @Test
    void letsExactlyOneProbeThroughAfterTheCoolDown() {
        open();
        advanceMillis(999);
        assertThat(breaker.tryAcquire()).isFalse();
        assertThat(breaker.millisUntilProbe()).isEqualTo(1);
        advanceMillis(1);
        assertThat(breaker.tryAcquire()).isTrue();
        assertThat(breaker.tryAcquire()).as("a second caller while the probe runs").isFalse();
    }

    @Test
    void closesWhenTheProbeSucceeds() {
        open();
        advanceMillis(1000);
        assertThat(breaker.tryAcquire()).isTrue();
        breaker.onSuccess();
        assertThat(breaker.isOpen()).isFalse();
        assertThat(breaker.tryAcquire()).isTrue();
        assertThat(breaker.millisUntilProbe()).isZero();
    }

    @Test
    void reopensForAnotherCoolDownWhenTheProbeFails() {
        open();
        advanceMillis(1000);
        assertThat(breaker.tryAcquire()).isTrue();
        breaker.onFailure();
        assertThat(breaker.tryAcquire()).isFalse();
        assertThat(breaker.millisUntilProbe()).isEqualTo(1000);
        advanceMillis(1000);
        assertThat(breaker.tryAcquire()).isTrue();
    }

    @Test
    void ignoresLateFailuresOfCallsThatStartedBeforeItOpened() {
        open();
        long before = breaker.millisUntilProbe();
        advanceMillis(500);
        breaker.onFailure();
        assertThat(breaker.millisUntilProbe()).isEqualTo(before - 500);
    }

    @Test
    void ignoresLateSuccessesOfCallsThatStartedBeforeItOpened() {
        open();
        breaker.onSuccess();
        assertThat(breaker.isOpen()).as("still open until a probe succeeds").isTrue();
        advanceMillis(1000);
        assertThat(breaker.tryAcquire()).isTrue();
        breaker.onSuccess();
        assertThat(breaker.isOpen()).isFalse();
    }

    private void open() {
        for (int i = 0; i < 3; i++) {
            assertThat(breaker.tryAcquire()).isTrue();
            breaker.onFailure();
        }
        assertThat(breaker.isOpen()).isTrue();
    }
}
