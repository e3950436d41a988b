package dev.sluice.internal.config;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import static dev.sluice.internal.config.Rejections.rejects;
import static org.assertj.core.api.Assertions.assertThat;

class RatesTest {

    private static final String KEY = "sluice.limit.api.rate";

    @Test
    void readsOneBandwidthWhoseCapacityIsItsTokens() {
        assertThat(Rates.parse(KEY, "100/1m", OptionalLong.empty()))
                .containsExactly(new Bandwidth(100, Duration.ofMinutes(1), 100));
    }

    @Test
    void readsSeveralBandwidthsAndGivesTheBurstToTheFirstOnly() {
        List<Bandwidth> bandwidths = Rates.parse(KEY, "10/1s, 1000/1h", OptionalLong.of(25));
        assertThat(bandwidths).containsExactly(
                new Bandwidth(10, Duration.ofSeconds(1), 25),
                new Bandwidth(1000, Duration.ofHours(1), 1000));
    }

    @Test
    void readsUnitWithoutNumberAsOneOfIt() {
        assertThat(Rates.parse(KEY, "10/s", OptionalLong.empty()))
                .containsExactly(new Bandwidth(10, Duration.ofSeconds(1), 10));
        assertThat(Rates.parse(KEY, "5/m", OptionalLong.empty()).get(0).period()).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void readsIsoPeriod() {
        assertThat(Rates.parse(KEY, "3/PT0.5S", OptionalLong.empty()).get(0).period())
                .isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void acceptsExactlyOneTokenPerMicrosecond() {
        Bandwidth b = Rates.parse(KEY, "1000000/1s", OptionalLong.empty()).get(0);
        assertThat(b.emissionIntervalMicros()).isEqualTo(1.0);
    }

    @Test
    void rejectsRateWithoutTokens() {
        String message = rejects(() -> Rates.parse(KEY, "ten/s", OptionalLong.empty()), KEY, "\"ten/s\"");
        assertThat(message).isEqualTo("sluice.limit.api.rate: \"ten/s\" is not a rate; expected"
                + " <tokens>/<duration> such as 100/1m or 10/1s");
    }

    @Test
    void rejectsZeroTokens() {
        String message = rejects(() -> Rates.parse(KEY, "0/1s", OptionalLong.empty()), KEY, "\"0/1s\"");
        assertThat(message).contains("at least 1 token");
    }

    @Test
    void rejectsNegativeTokens() {
        rejects(() -> Rates.parse(KEY, "-3/1s", OptionalLong.empty()), KEY, "\"-3/1s\"");
    }

    @Test
    void rejectsZeroPeriod() {
        String message = rejects(() -> Rates.parse(KEY, "10/0s", OptionalLong.empty()), KEY, "\"10/0s\"");
        assertThat(message).contains("positive duration");
    }

    @Test
    void rejectsRateWithoutPeriod() {
        rejects(() -> Rates.parse(KEY, "100", OptionalLong.empty()), KEY, "\"100\"");
    }

    @Test
    void rejectsBadSecondBandwidth() {
        rejects(() -> Rates.parse(KEY, "10/1s,lots/1h", OptionalLong.empty()), KEY, "\"10/1s,lots/1h\"");
    }

    @Test
    void rejectsMoreThanOneTokenPerMicrosecondAndSaysWhy() {
        String message = rejects(() -> Rates.parse(KEY, "2000000/1s", OptionalLong.empty()), KEY, "\"2000000/1s\"");
        assertThat(message).contains("1000000 tokens per second", "whole microseconds");
    }

    @Test
    void rejectsBurstSoLargeThatAFullBucketWouldRefillInMoreThanACentury() {
        String message = rejects(() -> Rates.parse(KEY, "10/1s", OptionalLong.of(100_000_000_000L)), KEY, "\"10/1s\"");
        assertThat(message).contains("burst of 100000000000", "36525d");
    }

    @Test
    void rejectsBurstWhoseRefillTimeOverflows() {
        rejects(() -> Rates.parse(KEY, "1/1d", OptionalLong.of(Long.MAX_VALUE)), KEY, "\"1/1d\"");
    }

    @Test
    void rejectsPeriodLongerThanACentury() {
        rejects(() -> Rates.parse(KEY, "1/40000d", OptionalLong.empty()), KEY, "\"1/40000d\"");
    }

    @Test
    void acceptsYearLongWindows() {
        assertThat(Rates.parse(KEY, "1000/365d", OptionalLong.empty())).hasSize(1);
    }

    @Test
    void rejectsATokenCountRateLimitHeadersCannotCarryAndSaysWhy() {
        // Without a burst the bucket holds the token count, which RateLimit-Policy shows as q.
        String message = rejects(() -> Rates.parse(KEY, "1200000000000000/PT1200000000S", OptionalLong.empty()),
                KEY, "\"1200000000000000/PT1200000000S\"");
        assertThat(message).contains("999999999999999", "15 digits", "sluice.limit.api.burst");
    }

    @Test
    void acceptsTheLargestBucketRateLimitHeadersCanCarry() {
        assertThat(Rates.parse(KEY, "999999999999999/PT999999999.999999S", OptionalLong.empty()).get(0).capacity())
                .isEqualTo(999_999_999_999_999L);
    }

    @Test
    void rejectsABurstRateLimitHeadersCannotCarryAndSaysWhy() {
        String burstKey = "sluice.limit.api.burst";
        String message = rejects(Map.of("sluice.limit.api.rate", "1000000/1s", burstKey, "3000000000000000"),
                burstKey, "\"3000000000000000\"");
        assertThat(message).contains("999999999999999", "15 digits");
    }

    @Test
    void rejectsABucketTooLargeToCountExactlyAndSaysWhy() {
        // 7/1s: a token every 142857 1/7 µs, counted in sevenths of a microsecond; 10^10 tokens of that are more
        // sevenths than Lua's numbers hold exactly, although such a bucket refills in 45 years.
        String message = rejects(() -> Rates.parse(KEY, "7/1s", OptionalLong.of(10_000_000_000L)), KEY, "\"7/1s\"");
        assertThat(message).contains("burst of 10000000000", "1/7 µs", "at most 4503599627 tokens", "sluice.limit.api.burst");
        assertThat(Rates.parse(KEY, "7/1s", OptionalLong.of(4_503_599_627L))).hasSize(1);
        rejects(() -> Rates.parse(KEY, "7/1s", OptionalLong.of(4_503_599_628L)), KEY, "\"7/1s\"");
    }

    @Test
    void countsTheIntervalExactlyInAUnitOfItsOwn() {
        Bandwidth b = Rates.parse(KEY, "9999/1s", OptionalLong.empty()).get(0);
        assertThat(b.intervalUnits()).isEqualTo(1_000_000);
        assertThat(b.unitsPerMicro()).isEqualTo(9999);
        Bandwidth whole = Rates.parse(KEY, "100/1m", OptionalLong.empty()).get(0);
        assertThat(whole.intervalUnits()).isEqualTo(600_000);
        assertThat(whole.unitsPerMicro()).isEqualTo(1);
        Bandwidth submicro = Rates.parse(KEY, "3/PT0.0000035S", OptionalLong.empty()).get(0);
        assertThat(submicro.intervalUnits()).isEqualTo(7);
        assertThat(submicro.unitsPerMicro()).isEqualTo(6);
    }

    @Test
    void showsTheBucketAsQuotaAndItsRefillTimeAsWindow() {
        Bandwidth b = Rates.parse(KEY, "10/1s", OptionalLong.of(25)).get(0);
        assertThat(b.windowSeconds()).as("25 tokens at 10/s refill in 2.5 s, rounded up").isEqualTo(3);
        assertThat(Rates.parse(KEY, "100/1m", OptionalLong.empty()).get(0).windowSeconds()).isEqualTo(60);
        assertThat(Rates.parse(KEY, "10/1s", OptionalLong.of(1)).get(0).windowSeconds()).isEqualTo(1);
    }

    @Test
    void rejectsEmptyRate() {
        rejects(() -> Rates.parse(KEY, ",", OptionalLong.empty()), KEY, "\",\"");
    }
}
