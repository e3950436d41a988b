package dev.sluice.internal.limit;

import dev.sluice.RateLimitDecision;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.runtime.SluiceRuntime;
import dev.sluice.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.Map;

import static dev.sluice.internal.limit.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A policy whose rate changes (a configuration reload) keeps its Redis buckets: the stored state is how far the
 * bucket's full-again instant lies ahead, and the new rate reads it in its own terms at the next call. Never more
 * than the new burst is admitted; a larger rate refills at its own pace; a debt of more than a full new bucket
 * counts as exactly full.
 */
class ReloadedRateIT {

    @RegisterExtension
    static final RedisServer REDIS = RedisServer.standalone();

    private SluiceRuntime runtime;
    private RateLimitEngine engine;

    @BeforeEach
    void start() {
        runtime = SluiceRuntime.start(SluiceConfigLoader.load(ConfigSources.of(Map.of(
                "sluice.redis.uri", REDIS.uri(), "sluice.deny-cache.size", "0"))));
        engine = runtime.rateLimits();
    }

    @AfterEach
    void stop() {
        runtime.close();
    }

    private int admitted(PolicyConfig policy, String client, int attempts) {
        int admitted = 0;
        for (int i = 0; i < attempts; i++) {
            if (engine.decide(policy, client, 1).allowed()) {
                admitted++;
            }
        }
        return admitted;
    }

    @ParameterizedTest(name = "{0} of 10 taken under 10/1m, then {1} admitted under 2/1m")
    @CsvSource({"0, 2", "5, 1", "10, 0"})
    void aSmallerRateNeverAdmitsMoreThanItsBurst(int takenBefore, int admittedAfter) {
        String client = "client-" + takenBefore;
        PolicyConfig before = policy("api", 10, Duration.ofMinutes(1));
        PolicyConfig after = policy("api", 2, Duration.ofMinutes(1));
        assertThat(admitted(before, client, takenBefore)).isEqualTo(takenBefore);

        int admitted = admitted(after, client, 10);

        assertThat(admitted).isLessThanOrEqualTo(2).isEqualTo(admittedAfter);
    }

    @Test
    void aDrainedBucketUnderASmallerRateWaitsForTheNewInterval() {
        PolicyConfig before = policy("api", 10, Duration.ofMinutes(1));
        PolicyConfig after = policy("api", 2, Duration.ofMinutes(1));
        admitted(before, "drained", 10);

        RateLimitDecision refused = engine.decide(after, "drained", 1);

        assertThat(refused.allowed()).isFalse();
        assertThat(refused.limit()).isEqualTo(2);
        assertThat(refused.retryAfterMillis()).as("one token of 2/1m").isBetween(29_000L, 30_000L);
    }

    @Test
    void aLargerRateRefillsTheBucketAtItsOwnPace() {
        PolicyConfig before = policy("api", 2, Duration.ofMinutes(1));
        PolicyConfig after = policy("api", 600, Duration.ofMinutes(1));
        admitted(before, "drained", 2);
        assertThat(engine.decide(before, "drained", 1).retryAfterMillis()).as("under 2/1m").isGreaterThan(1_000);

        RateLimitDecision refused = engine.decide(after, "drained", 1);

        assertThat(refused.allowed()).as("the bucket is as empty as it was").isFalse();
        assertThat(refused.retryAfterMillis()).as("one token of 600/1m").isLessThanOrEqualTo(100);
        await().atMost(Duration.ofSeconds(10)).until(() -> engine.decide(after, "drained", 1).allowed());
    }

    @Test
    void aDebtOfMoreThanAFullNewBucketCountsAsExactlyFull() {
        PolicyConfig before = policy("api", 1, Duration.ofHours(1));
        PolicyConfig after = policy("api", 10, Duration.ofMinutes(1));
        admitted(before, "hourly", 1);

        RateLimitDecision refused = engine.decide(after, "hourly", 1);

        assertThat(refused.allowed()).isFalse();
        assertThat(refused.retryAfterMillis()).as("one token of 10/1m, not the rest of the hour")
                .isLessThanOrEqualTo(6_000);
        assertThat(refused.resetMillis()).as("a full bucket of 10/1m").isLessThanOrEqualTo(60_000);
    }
}
