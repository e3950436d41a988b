package dev.sluice.internal.config;

import java.math.BigInteger;
import java.time.Duration;
import java.util.Objects;

/**
 * One bandwidth of a policy: {@code tokens} per {@code period}, refilled continuously, in a bucket of
 * {@code capacity} tokens (the burst; the first bandwidth of a policy takes {@code burst}, the others their
 * token count). Immutable; equal when tokens, period and capacity are.
 *
 * <p>The interval between two tokens, {@code period / tokens}, is kept exactly, as the fraction
 * {@link #intervalUnits()} / {@link #unitsPerMicro()} of a microsecond in lowest terms: the engines count this
 * bucket's time in units of {@code 1 / unitsPerMicro} µs, in which the interval is a whole number. For most
 * rates ({@code 100/1m}, {@code 10/1s}) the unit is the microsecond itself.
 */
public final class Bandwidth {

    private static final BigInteger THOUSAND = BigInteger.valueOf(1000);
    private static final BigInteger BILLION = BigInteger.valueOf(1_000_000_000);

    private final long tokens;
    private final Duration period;
    private final long capacity;
    private final BigInteger intervalUnits;
    private final BigInteger unitsPerMicro;
    private final long windowSeconds;

    public Bandwidth(long tokens, Duration period, long capacity) {
        if (tokens < 1 || capacity < 1 || period.isNegative() || period.isZero()) {
            throw new IllegalArgumentException("invalid bandwidth " + tokens + "/" + period + " capacity " + capacity);
        }
        this.tokens = tokens;
        this.period = period;
        this.capacity = capacity;
        // interval = period_ns / (1000 × tokens) µs, reduced.
        BigInteger nanos = BigInteger.valueOf(period.getSeconds()).multiply(BILLION)
                .add(BigInteger.valueOf(period.getNano()));
        BigInteger thousandthsPerToken = BigInteger.valueOf(tokens).multiply(THOUSAND);
        BigInteger gcd = nanos.gcd(thousandthsPerToken);
        this.intervalUnits = nanos.divide(gcd);
        this.unitsPerMicro = thousandthsPerToken.divide(gcd);
        // capacity × period / tokens, in whole seconds rounded up, at least 1.
        BigInteger[] refill = nanos.multiply(BigInteger.valueOf(capacity)).divideAndRemainder(thousandthsPerToken.multiply(BigInteger.valueOf(1_000_000)));
        BigInteger seconds = refill[1].signum() == 0 ? refill[0] : refill[0].add(BigInteger.ONE);
        this.windowSeconds = Math.max(1, seconds.min(BigInteger.valueOf(Long.MAX_VALUE)).longValueExact());
    }

    public long tokens() {
        return tokens;
    }

    public Duration period() {
        return period;
    }

    public long capacity() {
        return capacity;
    }

    /** Microseconds between two tokens (may be fractional; for display and tests). */
    public double emissionIntervalMicros() {
        return intervalUnits.doubleValue() / unitsPerMicro.doubleValue();
    }

    /** The interval between two tokens in this bucket's unit, {@code 1 / unitsPerMicro()} µs: a whole number. */
    public long intervalUnits() {
        return intervalUnits.longValueExact();
    }

    /** How many of this bucket's units make a microsecond (1 when the interval is a whole number of µs). */
    public long unitsPerMicro() {
        return unitsPerMicro.longValueExact();
    }

    /**
     * The largest number the engines handle for this bucket, in its units: a full bucket
     * ({@code capacity × intervalUnits}) plus one microsecond ({@code unitsPerMicro}). Configuration keeps it
     * within 2^52 so that Lua's doubles hold every sum of two such numbers exactly.
     */
    BigInteger spanUnitsPlusAMicrosecond() {
        return intervalUnits.multiply(BigInteger.valueOf(capacity)).add(unitsPerMicro);
    }

    /** {@link #unitsPerMicro()} without overflow, for messages. */
    BigInteger unitsPerMicroExact() {
        return unitsPerMicro;
    }

    /** {@link #intervalUnits()} without overflow, for messages. */
    BigInteger intervalUnitsExact() {
        return intervalUnits;
    }

    /** Microseconds a full bucket takes to refill from empty, rounded up, without overflow. */
    BigInteger refillMicros() {
        BigInteger[] qr = intervalUnits.multiply(BigInteger.valueOf(capacity)).divideAndRemainder(unitsPerMicro);
        return qr[1].signum() == 0 ? qr[0] : qr[0].add(BigInteger.ONE);
    }

    /** The whole tokens this bandwidth grants in {@code duration}: {@code floor(tokens × duration / period)}. */
    public long tokensIn(Duration duration) {
        BigInteger granted = BigInteger.valueOf(tokens).multiply(BigInteger.valueOf(duration.toNanos()))
                .divide(BigInteger.valueOf(period.getSeconds()).multiply(BILLION).add(BigInteger.valueOf(period.getNano())));
        return granted.min(BigInteger.valueOf(Long.MAX_VALUE)).longValueExact();
    }

    public long periodMicros() {
        return period.toNanos() / 1000;
    }

    /**
     * Seconds the bucket takes to refill from empty ({@code capacity × period / tokens}), rounded up and at
     * least 1: the window of the RateLimit-Policy header ({@code w}), beside the capacity as its quota
     * ({@code q}). Without a burst it is the period.
     */
    public long windowSeconds() {
        return windowSeconds;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Bandwidth b && tokens == b.tokens && capacity == b.capacity && period.equals(b.period);
    }

    @Override
    public int hashCode() {
        return Objects.hash(tokens, period, capacity);
    }

    @Override
    public String toString() {
        return "Bandwidth[tokens=" + tokens + ", period=" + period + ", capacity=" + capacity + "]";
    }
}
