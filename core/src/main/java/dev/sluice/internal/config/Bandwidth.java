package dev.sluice.internal.config;

import java.time.Duration;

/**
 * One bandwidth of a policy: {@code tokens} per {@code period}, refilled continuously, in a bucket of
 * {@code capacity} tokens (the burst; the first bandwidth of a policy takes {@code burst}, the others their
 * token count). Immutable.
 */
public record Bandwidth(long tokens, Duration period, long capacity) {

    public Bandwidth {
        if (tokens < 1 || capacity < 1 || period.isNegative() || period.isZero()) {
            throw new IllegalArgumentException("invalid bandwidth " + tokens + "/" + period + " capacity " + capacity);
        }
    }

    /** Microseconds between two tokens (may be fractional). */
    public double emissionIntervalMicros() {
        return periodMicros() / (double) tokens;
    }

    /**
     * The emission interval in whole microseconds, rounded up: the engine works in integers so that
     * Lua's doubles stay exact. Rounding up never admits more than configured; the effective rate is
     * lower by less than one microsecond per token (under 0.1% up to 1,000 tokens/s per bucket).
     */
    public long intervalMicros() {
        long period = periodMicros();
        return (period + tokens - 1) / tokens;
    }

    public long periodMicros() {
        return period.toNanos() / 1000;
    }

    /** Window in whole seconds for the RateLimit-Policy header ({@code w=}), at least 1. */
    public long windowSeconds() {
        return Math.max(1, (period.toMillis() + 999) / 1000);
    }
}
