package dev.sluice.internal.redis;

import org.junit.jupiter.api.Test;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

import java.time.Duration;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicLong;

import static dev.sluice.internal.redis.CircuitBreaker.REFUSED;
import static org.assertj.core.api.Assertions.assertThat;

class CircuitBreakerTest {

    private static final Exception DOWN = new JedisException("Connection refused");

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final CircuitBreaker breaker = new CircuitBreaker(3, Duration.ofSeconds(1), nanos::get, "Redis at test");

    private void advanceMillis(long millis) {
        nanos.addAndGet(millis * 1_000_000L);
    }

    private void fail(long ticket) {
        breaker.onFailure(ticket, DOWN);
    }

    @Test
    void staysClosedUntilTheThresholdOfConsecutiveFailures() {
        fail(breaker.enter());
        fail(breaker.enter());
        assertThat(breaker.isOpen()).isFalse();
        long third = breaker.enter();
        assertThat(third).isNotEqualTo(REFUSED);
        fail(third);
        assertThat(breaker.isOpen()).isTrue();
        assertThat(breaker.enter()).isEqualTo(REFUSED);
    }

    @Test
    void aSuccessResetsTheFailureCount() {
        fail(breaker.enter());
        fail(breaker.enter());
        breaker.onSuccess(breaker.enter());
        fail(breaker.enter());
        fail(breaker.enter());
        assertThat(breaker.isOpen()).isFalse();
    }

    @Test
    void letsExactlyOneProbeThroughAfterTheCoolDown() {
        open();
        advanceMillis(999);
        assertThat(breaker.enter()).isEqualTo(REFUSED);
        assertThat(breaker.millisUntilProbe()).isEqualTo(1);
        advanceMillis(1);
        assertThat(breaker.enter()).isNotEqualTo(REFUSED);
        assertThat(breaker.enter()).as("a second caller while the probe runs").isEqualTo(REFUSED);
    }

    @Test
    void closesWhenTheProbeSucceeds() {
        open();
        advanceMillis(1000);
        long probe = breaker.enter();
        breaker.onSuccess(probe);
        assertThat(breaker.isOpen()).isFalse();
        assertThat(breaker.enter()).isNotEqualTo(REFUSED);
        assertThat(breaker.millisUntilProbe()).isZero();
    }

    @Test
    void reopensForAnotherCoolDownWhenTheProbeFails() {
        open();
        advanceMillis(1000);
        fail(breaker.enter());
        assertThat(breaker.enter()).isEqualTo(REFUSED);
        assertThat(breaker.millisUntilProbe()).isEqualTo(1000);
        advanceMillis(1000);
        assertThat(breaker.enter()).isNotEqualTo(REFUSED);
    }

    @Test
    void ignoresLateFailuresOfCallsThatStartedBeforeItOpened() {
        long inFlight = breaker.enter();
        open();
        long before = breaker.millisUntilProbe();
        advanceMillis(500);
        fail(inFlight);
        assertThat(breaker.millisUntilProbe()).isEqualTo(before - 500);
    }

    @Test
    void ignoresLateSuccessesOfCallsThatStartedBeforeItOpened() {
        long inFlight = breaker.enter();
        open();
        breaker.onSuccess(inFlight);
        assertThat(breaker.isOpen()).as("still open until a probe succeeds").isTrue();
        advanceMillis(1000);
        breaker.onSuccess(breaker.enter());
        assertThat(breaker.isOpen()).isFalse();
    }

    @Test
    void aLateSuccessOfAnOlderCallDoesNotCloseItWhileTheProbeRuns() {
        long inFlight = breaker.enter();
        open();
        advanceMillis(1000);
        long probe = breaker.enter();
        assertThat(probe).as("the probe").isNotEqualTo(REFUSED);
        breaker.onSuccess(inFlight); // an answer to a call sent before the outage, arriving now
        assertThat(breaker.isOpen()).as("only the probe's own answer decides").isTrue();
        fail(probe);
        assertThat(breaker.enter()).as("the failed probe opened it for another cool-down").isEqualTo(REFUSED);
    }

    @Test
    void aLateFailureOfAnOlderProbeDoesNotReopenItUnderTheNextProbe() {
        open();
        advanceMillis(1000);
        long first = breaker.enter();
        breaker.onFailure(first, new JedisException("Could not get a resource from the pool",
                new NoSuchElementException("Timeout waiting for idle object")));
        long second = breaker.enter();
        assertThat(second).as("an overloaded probe learnt nothing: the next caller probes at once")
                .isNotEqualTo(REFUSED);
        fail(first);
        breaker.onSuccess(second);
        assertThat(breaker.isOpen()).isFalse();
    }

    @Test
    void aFloodOnAHealthyRedisDoesNotOpenIt() {
        for (int i = 0; i < 10; i++) {
            breaker.onFailure(breaker.enter(), new JedisException("Could not get a resource from the pool",
                    new NoSuchElementException("Timeout waiting for idle object")));
            breaker.onFailure(breaker.enter(), new JedisDataException(
                    "OOM command not allowed when used memory > 'maxmemory'. script: 91fb, on @user_script:1."));
        }
        assertThat(breaker.isOpen()).isFalse();
    }

    private void open() {
        for (int i = 0; i < 3; i++) {
            long ticket = breaker.enter();
            assertThat(ticket).isNotEqualTo(REFUSED);
            fail(ticket);
        }
        assertThat(breaker.isOpen()).isTrue();
    }
}
