package dev.sluice.internal.limit;

import dev.sluice.internal.config.PolicyConfig;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static dev.sluice.internal.limit.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The in-process store as an application gets it, on the JVM's wall clock: every other test of the store injects
 * a clock, so this one checks that the real one moves buckets forward.
 */
class InProcessRateLimitStoreWallClockTest {

    @Test
    void anEmptiedBucketRefillsAsRealTimePasses() {
        RateLimitEngine engine = Engines.over(new InProcessRateLimitStore(), "sluice");
        PolicyConfig p = policy("p", 10, Duration.ofSeconds(1));
        while (engine.decide(p, "k", 1).allowed()) {
            // empty the bucket, however much time passes meanwhile
        }
        assertThat(engine.decide(p, "k", 1).allowed()).isFalse();

        await().atMost(Duration.ofSeconds(10)).until(() -> engine.decide(p, "k", 1).allowed());
    }

    @Test
    void theWallClockCountsMicrosecondsSinceTheEpoch() {
        long before = System.currentTimeMillis();
        long micros = InProcessRateLimitStore.wallClockMicros();
        long after = System.currentTimeMillis();
        assertThat(micros).isBetween(before * 1_000, after * 1_000 + 999);
    }
}
