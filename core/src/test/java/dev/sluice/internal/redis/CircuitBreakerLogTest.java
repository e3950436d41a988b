package dev.sluice.internal.redis;

import dev.sluice.test.LogCapture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import redis.clients.jedis.exceptions.JedisException;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What an operator reads about the breaker: one WARNING when it opens, naming the last failure and the cool-down,
 * one when it closes again, and nothing for failed probes in between. Also the bounds of its settings.
 */
class CircuitBreakerLogTest {

    @RegisterExtension
    final LogCapture logs = new LogCapture();

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final CircuitBreaker breaker = new CircuitBreaker(2, Duration.ofMillis(1_500), nanos::get, "Redis at test");

    private List<String> warnings() {
        return logs.records(Level.WARNING, "dev.sluice").stream().map(logs::text).toList();
    }

    private void failTwice() {
        breaker.onFailure(breaker.enter(), new JedisException("Connection refused"));
        breaker.onFailure(breaker.enter(), new JedisException("Connection reset"));
    }

    @Test
    void opensWithOneWarningThatNamesTheLastFailureAndTheCoolDown() {
        failTwice();

        assertThat(breaker.isOpen()).isTrue();
        assertThat(warnings()).containsExactly("Sluice: Redis at test failed 2 times in a row (last: Connection "
                + "reset); skipping it for 1500 ms at a time until it answers again (sluice.on-redis-failure applies "
                + "to rate limits meanwhile; locks and semaphores are refused)");
    }

    @Test
    void aFailureWithoutACauseOpensItWithoutOne() {
        breaker.onFailure(breaker.enter(), null);
        breaker.onFailure(breaker.enter(), null);

        assertThat(warnings()).singleElement().asString().contains("failed 2 times in a row; skipping it");
    }

    @Test
    void failedProbesAreNotLoggedAndTheSuccessfulOneClosesItWithOneWarning() {
        failTwice();
        for (int probe = 0; probe < 3; probe++) {
            nanos.addAndGet(Duration.ofMillis(1_500).toNanos());
            breaker.onFailure(breaker.enter(), new JedisException("still down"));
        }
        assertThat(warnings()).as("only the opening").hasSize(1);

        nanos.addAndGet(Duration.ofMillis(1_500).toNanos());
        breaker.onSuccess(breaker.enter());

        assertThat(breaker.isOpen()).isFalse();
        assertThat(warnings()).hasSize(2).last().isEqualTo("Sluice: Redis at test is reachable again; calls go to it "
                + "again");
    }

    @Test
    void successesWhileClosedLogNothing() {
        breaker.onFailure(breaker.enter(), new JedisException("Connection refused"));
        breaker.onSuccess(breaker.enter());
        breaker.onSuccess(breaker.enter());

        assertThat(breaker.isOpen()).isFalse();
        assertThat(warnings()).isEmpty();
    }

    @Test
    void aThresholdOfOneOpensAtTheFirstFailureAndZeroIsRefused() {
        CircuitBreaker single = new CircuitBreaker(1, Duration.ZERO, nanos::get, "Redis at test");
        single.onFailure(single.enter(), new JedisException("Connection refused"));
        assertThat(single.isOpen()).isTrue();

        assertThatThrownBy(() -> new CircuitBreaker(0, Duration.ofSeconds(1), nanos::get, "x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("threshold 0");
        assertThatThrownBy(() -> new CircuitBreaker(3, Duration.ofMillis(-1), nanos::get, "x"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
