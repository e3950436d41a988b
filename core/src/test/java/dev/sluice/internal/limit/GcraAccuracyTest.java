package dev.sluice.internal.limit;

import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.Rates;
import dev.sluice.internal.config.KeySpec;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.TimeMeter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Admits what is configured: the in-process store ({@link Gcra}, which {@code GcraDifferentialIT} ties to
 * {@code gcra.lua}) against Bucket4j's local token bucket with greedy refill, both on one simulated clock and
 * offered the same requests at about twice the configured rate, so that both spend every token they get. Their
 * admitted counts may differ by 0.1% at most, at every rate, including those whose interval between two
 * tokens is not a whole number of microseconds.
 */
class GcraAccuracyTest {

    private static final int STEPS = 200_000;

    @ParameterizedTest(name = "{0} burst {1}")
    @CsvSource(delimiter = '|', value = {
            "10/1s | 0", "100/1m | 0", "7/1s | 0", "3/1m | 0", "128/1s | 0", "1024/1s | 0", "9999/1s | 0",
            "300000/1s | 0", "999999/1s | 0", "1000000/1s | 0", "6/1s | 25", "333333/1s | 1", "7/1s | 1",
            "999999/PT1.000001S | 0", "1/1500ms | 0", "10/1s,7/1s | 3"})
    void admitsWhatIsConfiguredWithinAThousandth(String rate, long burst) {
        PolicyConfig policy = new PolicyConfig("p", Rates.parse("sluice.limit.p.rate", rate,
                burst > 0 ? OptionalLong.of(burst) : OptionalLong.empty()), KeySpec.IP, List.of(), Set.of(), 1, true);
        AtomicLong micros = new AtomicLong(1_795_000_000_000_000L);
        RateLimitEngine sluice = Engines.over(new InProcessRateLimitStore(micros::get), "sluice");
        Bucket oracle = oracle(policy, micros);

        // Requests take a twentieth of the smallest bucket, so that the run spans thousands of full buckets and
        // the first, full one weighs nothing. The clock advances by 0 to the time one request's tokens take to
        // refill (rounded down) per request: twice the rate on average.
        long cost = Math.max(1, policy.bandwidths().stream().mapToLong(b -> b.capacity()).min().orElseThrow() / 20);
        double refill = cost * policy.bandwidths().stream()
                .mapToDouble(b -> b.emissionIntervalMicros()).max().orElseThrow();
        Random random = new Random(rate.hashCode());
        long admitted = 0;
        long expected = 0;
        for (int i = 0; i < STEPS; i++) {
            admitted += sluice.decide(policy, "k", cost).allowed() ? 1 : 0;
            expected += oracle.tryConsume(cost) ? 1 : 0;
            micros.addAndGet((long) (random.nextDouble() * refill));
        }
        double error = (admitted - expected) / (double) expected;
        System.out.printf("admission %s burst %d cost %d: Sluice %d, Bucket4j %d, error %+.4f%%%n",
                rate, burst, cost, admitted, expected, error * 100);
        assertThat(Math.abs(error)).as("%s burst %d: Sluice admitted %d, Bucket4j %d", rate, burst, admitted, expected)
                .isLessThanOrEqualTo(0.001);
    }

    private static Bucket oracle(PolicyConfig policy, AtomicLong micros) {
        var builder = Bucket.builder().withCustomTimePrecision(new TimeMeter() {
            @Override
            public long currentTimeNanos() {
                return micros.get() * 1000;
            }

            @Override
            public boolean isWallClockBased() {
                return false;
            }
        });
        for (dev.sluice.internal.config.Bandwidth b : policy.bandwidths()) {
            builder.addLimit(limit -> limit.capacity(b.capacity()).refillGreedy(b.tokens(), b.period()));
        }
        return builder.build();
    }

}
