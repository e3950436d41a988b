package dev.sluice.internal.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;

import static dev.sluice.internal.config.Rejections.rejects;
import static org.assertj.core.api.Assertions.assertThat;

class DurationsTest {

    private static final String KEY = "sluice.lock.Orders.place.lease";

    @ParameterizedTest
    @CsvSource({
            "250ms, PT0.25S",
            "2s, PT2S",
            "5m, PT5M",
            "1h, PT1H",
            "7d, PT168H",
            "PT2S, PT2S",
            "PT0.5S, PT0.5S",
            "' 3s ', PT3S"})
    void readsUnitsAndIsoDurations(String text, String iso) {
        assertThat(Durations.parse(KEY, text)).isEqualTo(Duration.parse(iso));
    }

    @Test
    void rejectsZeroDuration() {
        rejects(() -> Durations.parse(KEY, "0s"), KEY, "\"0s\"");
    }

    @Test
    void rejectsNegativeDuration() {
        String message = rejects(() -> Durations.parse(KEY, "-5s"), KEY, "\"-5s\"");
        assertThat(message).contains(Durations.EXPECTED);
    }

    @Test
    void rejectsNegativeIsoDuration() {
        rejects(() -> Durations.parse(KEY, "PT-5S"), KEY, "\"PT-5S\"");
    }

    @Test
    void rejectsNumberWithoutUnit() {
        rejects(() -> Durations.parse(KEY, "500"), KEY, "\"500\"");
    }

    @Test
    void rejectsUpperCaseUnitThatCouldMeanMonths() {
        rejects(() -> Durations.parse(KEY, "5M"), KEY, "\"5M\"");
    }

    @Test
    void rejectsGarbage() {
        rejects(() -> Durations.parse(KEY, "soon"), KEY, "\"soon\"");
    }

    @Test
    void rejectsDurationTooLongToCountInNanoseconds() {
        String message = rejects(() -> Durations.parse(KEY, "200000d"), KEY, "\"200000d\"");
        assertThat(message).contains("at most 106751d");
    }

    @Test
    void maxWaitAcceptsZeroAsTryOnce() {
        assertThat(Durations.parseWait(KEY, "0")).isZero();
        assertThat(Durations.parseWait(KEY, "0ms")).isZero();
        assertThat(Durations.parseWait(KEY, "PT0S")).isZero();
        assertThat(Durations.parseWait(KEY, "10s")).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void maxWaitRejectsNegativeDuration() {
        String message = rejects(() -> Durations.parseWait(KEY, "-1s"), KEY, "\"-1s\"");
        assertThat(message).contains("0 (try once)");
    }

    @Test
    void leasesAndWaitsHaveRangesThatWorkAtRunTime() {
        assertThat(rejects(() -> Durations.parseLease(KEY, "PT0.0005S"), KEY, "\"PT0.0005S\""))
                .as("0 ms in Redis").contains("from 1ms to 3650d");
        assertThat(Durations.parseLease(KEY, "PT0.001S")).isEqualTo(Duration.ofMillis(1));
        assertThat(rejects(() -> Durations.parseLease(KEY, "0"), KEY, "\"0\"")).contains("from 1ms to 3650d");
        assertThat(rejects(() -> Durations.parseWait(KEY, "100000d"), KEY, "\"100000d\""))
                .as("a deadline past the nanosecond clock's range").contains("up to 3650d");
        assertThat(Durations.parseWait(KEY, "3650d")).isEqualTo(Duration.ofDays(3650));
    }
}
