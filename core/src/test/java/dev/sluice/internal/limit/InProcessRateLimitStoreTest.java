package dev.sluice.internal.limit;

import dev.sluice.RateLimitDecision;
import dev.sluice.internal.config.PolicyConfig;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static dev.sluice.internal.limit.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;

/** Clock-driven behaviour, checked on the in-process store with a controlled clock. */
class InProcessRateLimitStoreTest extends AbstractRateLimitContractTest {

    private final AtomicLong micros = new AtomicLong(1_700_000_000_000_000L);
    private InProcessRateLimitStore store;

    @Override
    protected RateLimitStore freshStore() {
        store = new InProcessRateLimitStore(micros::get);
        return store;
    }

    private RateLimitEngine engine() {
        return Engines.over(freshStore(), "sluice");
    }

    private void advance(Duration d) {
        micros.addAndGet(d.toNanos() / 1000);
    }

    @Test
    void refillsContinuouslyAtTheConfiguredRate() {
        RateLimitEngine engine = engine();
        PolicyConfig p = policy("p", 10, Duration.ofSeconds(1));
        for (int i = 0; i < 10; i++) {
            engine.decide(p, "k", 1);
        }
        assertThat(engine.decide(p, "k", 1).allowed()).isFalse();
        advance(Duration.ofMillis(100));
        assertThat(engine.decide(p, "k", 1).allowed()).isTrue();
        assertThat(engine.decide(p, "k", 1).allowed()).isFalse();
        advance(Duration.ofMillis(350));
        assertThat(engine.decide(p, "k", 1).remaining()).isEqualTo(2);
    }

    @Test
    void retryAfterIsNeverEarlierThanTheNextToken() {
        RateLimitEngine engine = engine();
        PolicyConfig p = policy("p", 3, Duration.ofSeconds(1));
        for (int i = 0; i < 3; i++) {
            engine.decide(p, "k", 1);
        }
        RateLimitDecision denied = engine.decide(p, "k", 1);
        assertThat(denied.retryAfterMillis()).isEqualTo(334);
        advance(Duration.ofMillis(denied.retryAfterMillis() - 1));
        assertThat(engine.decide(p, "k", 1).allowed()).as("one millisecond early").isFalse();
        advance(Duration.ofMillis(1));
        assertThat(engine.decide(p, "k", 1).allowed()).isTrue();
    }

    @Test
    void steadyTrafficAtNinetyPercentOfTheRateIsNeverDenied() {
        RateLimitEngine engine = engine();
        PolicyConfig p = policy("p", 100, Duration.ofSeconds(1));
        Duration gap = Duration.ofNanos(1_000_000_000L / 90);
        for (int i = 0; i < 90 * 30; i++) {
            assertThat(engine.decide(p, "k", 1).allowed()).as("request %d", i).isTrue();
            advance(gap);
        }
    }

    @Test
    void steadyTrafficWithARateThatIsNotAWholeNumberOfMicrosecondsIsNeverDenied() {
        RateLimitEngine engine = engine();
        PolicyConfig p = policy("p", 3, 3, Duration.ofSeconds(1));
        for (int i = 0; i < 3 * 60; i++) {
            assertThat(engine.decide(p, "k", 1).allowed()).as("request %d", i).isTrue();
            advance(Duration.ofMillis(370));
        }
    }

    @Test
    void admitsExactlyBurstPlusRateTimesElapsedUnderSaturation() {
        RateLimitEngine engine = engine();
        PolicyConfig p = policy("p", 20, 100, Duration.ofSeconds(1));
        long admitted = 0;
        for (int ms = 0; ms < 5_000; ms++) {
            for (int i = 0; i < 3; i++) {
                if (engine.decide(p, "k", 1).allowed()) {
                    admitted++;
                }
            }
            advance(Duration.ofMillis(1));
        }
        // 5 s at 100/s after a burst of 20; the last millisecond's refill is the only slack.
        assertThat(admitted).isBetween(519L, 520L);
    }

    @Test
    void bucketsAreForgottenOnceFull() {
        RateLimitEngine engine = engine();
        PolicyConfig p = policy("p", 10, Duration.ofSeconds(1));
        for (int i = 0; i < 5_000; i++) {
            engine.decide(p, "client-" + i, 1);
        }
        assertThat(store.size()).as("every bucket is held while it refills").isEqualTo(5_000);
        advance(Duration.ofSeconds(2));
        for (int i = 0; i < 5_000; i++) {
            engine.decide(p, "other", 1);
        }
        assertThat(store.size()).isLessThan(100);
    }
}
