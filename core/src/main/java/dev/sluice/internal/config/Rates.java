package dev.sluice.internal.config;

import dev.sluice.SluiceConfigException;

import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * The one place where Sluice reads rates: {@code <tokens>/<duration>}, several separated by commas, all
 * enforced together ({@code 10/1s,1000/1h}). The duration takes every form {@link Durations} accepts, and
 * a unit alone means one of it ({@code 10/s} is {@code 10/1s}).
 *
 * <p>Limits, each refused with a message that says why: at least 1 token, and at most one token per microsecond
 * ({@value #MAX_TOKENS_PER_SECOND} tokens per second) per bandwidth, the resolution of the store's clock; a
 * bucket of at most {@value #MAX_COUNT} tokens, the largest number the RateLimit headers can carry (RFC 9651
 * Integers have at most 15 digits); a full bucket must refill within {@link #MAX_REFILL}, so that bucket times
 * stay exact in Lua's doubles; and a full bucket counted in its own unit (see {@link Bandwidth}) must stay within
 * {@value #MAX_UNITS}, for the same reason.
 *
 * <p>Stateless and thread-safe.
 */
public final class Rates {

    /** Fastest accepted bandwidth, in tokens per second. */
    public static final long MAX_TOKENS_PER_SECOND = 1_000_000;

    /** Longest time a full bucket of one bandwidth may take to refill: 36525 days. */
    public static final Duration MAX_REFILL = Duration.ofDays(36525);

    /** Most tokens a bucket may hold: the largest Integer of HTTP Structured Fields (RFC 9651), 15 digits. */
    public static final long MAX_COUNT = 999_999_999_999_999L;

    /** Largest full bucket plus one microsecond, in the bucket's own unit: 2^52, so that sums stay exact in Lua. */
    public static final long MAX_UNITS = 1L << 52;

    /** The accepted form, as printed in error messages. */
    public static final String EXPECTED = "<tokens>/<duration> such as 100/1m or 10/1s";

    private static final Pattern TOKENS = Pattern.compile("\\d{1,19}");
    private static final Pattern UNIT_ONLY = Pattern.compile("ms|s|m|h|d");

    private Rates() {
    }

    /**
     * Parses one or more comma-separated bandwidths.
     *
     * @param key   the configuration key, for messages
     * @param value the text as written
     * @param burst capacity of the first bandwidth, already validated as {@code >= 1}; when empty the first
     *              bandwidth holds as many tokens as it refills per period. Later bandwidths always do.
     * @return the bandwidths in the order written, never empty
     * @throws SluiceConfigException when the value is not a rate, has 0 tokens, a period that is not a
     *                               positive duration, or is faster than one token per microsecond
     */
    public static List<Bandwidth> parse(String key, String value, OptionalLong burst) {
        List<Bandwidth> out = new ArrayList<>();
        for (String part : value.split(",", -1)) {
            String p = part.trim();
            if (p.isEmpty()) {
                continue;
            }
            long tokens = tokens(key, value, p);
            Duration period = period(key, value, p);
            if (period.toNanos() / 1000 < tokens) {
                throw ConfigProblems.invalid(key, value, "is faster than one token per"
                        + " microsecond in \"" + p + "\"", "at most " + MAX_TOKENS_PER_SECOND
                        + " tokens per second per bandwidth, because Sluice's clock (Redis TIME) counts whole"
                        + " microseconds");
            }
            OptionalLong ownBurst = out.isEmpty() ? burst : OptionalLong.empty();
            long capacity = ownBurst.isPresent() ? ownBurst.getAsLong() : tokens;
            if (capacity > MAX_COUNT) {
                throw ConfigProblems.invalid(key, value, "gives a bucket of " + capacity
                        + " tokens in \"" + p + "\"", "at most " + MAX_COUNT + " tokens per bucket"
                        + (out.isEmpty() ? " (" + burstKey(key) + " sets a smaller one)" : "") + ", because the"
                        + " RateLimit headers carry it as a Structured Fields Integer, which has at most 15 digits");
            }
            Bandwidth bandwidth = new Bandwidth(tokens, period, capacity);
            checkRefillTime(key, value, p, bandwidth, ownBurst);
            checkExact(key, value, p, bandwidth, ownBurst, out.isEmpty());
            out.add(bandwidth);
        }
        if (out.isEmpty()) {
            throw notARate(key, value);
        }
        return List.copyOf(out);
    }

    /**
     * The engines keep a bucket as the microsecond at which it is full again, in integers that Lua's
     * doubles must hold exactly (below 2^53, with the current time added). Refilling a full bucket may
     * therefore take at most {@link #MAX_REFILL}.
     */
    private static void checkRefillTime(String key, String value, String part, Bandwidth b, OptionalLong burst) {
        if (b.refillMicros().compareTo(BigInteger.valueOf(MAX_REFILL.toNanos() / 1000)) > 0) {
            throw ConfigProblems.invalid(key, value, (burst.isPresent()
                    ? "with a burst of " + burst.getAsLong() + " " : "") + "takes more than " + MAX_REFILL.toDays()
                    + "d to refill a full bucket in \"" + part + "\"", "a rate and burst whose full bucket"
                    + " refills within " + MAX_REFILL.toDays() + "d (about 100 years), because Sluice counts"
                    + " bucket time in microseconds that must stay exact in Lua");
        }
    }

    /**
     * The engines count a bucket whose interval is not a whole number of microseconds in units of
     * {@code 1 / unitsPerMicro} µs, so that they admit exactly the configured rate; a full bucket in those units
     * must stay within {@link #MAX_UNITS}. Only very large bursts at such rates exceed it.
     */
    private static void checkExact(String key, String value, String part, Bandwidth b, OptionalLong burst,
            boolean first) {
        if (b.spanUnitsPlusAMicrosecond().compareTo(BigInteger.valueOf(MAX_UNITS)) <= 0) {
            return;
        }
        BigInteger most = BigInteger.valueOf(MAX_UNITS).subtract(b.unitsPerMicroExact()).divide(b.intervalUnitsExact());
        String unit = "1/" + b.unitsPerMicroExact() + " µs";
        throw ConfigProblems.invalid(key, value, (burst.isPresent()
                ? "with a burst of " + burst.getAsLong() + " " : "") + "holds too many tokens to count exactly in \""
                + part + "\": a token comes every " + b.intervalUnitsExact() + "/" + b.unitsPerMicroExact() + " µs,"
                + " not a whole number of microseconds, so Sluice counts this bucket in units of " + unit + " to"
                + " admit exactly the configured rate, and a full bucket must stay within 2^52 of them, as Lua's"
                + " numbers hold no more exactly", (most.signum() > 0 ? "a bucket of at most " + most
                + " tokens at this rate (" + (first ? "set by " + burstKey(key) : "fewer tokens per period")
                + "), or " : "") + "a period that is a whole number of microseconds per token");
    }

    /** {@code sluice.limit.<policy>.burst} beside {@code sluice.limit.<policy>.rate}. */
    private static String burstKey(String rateKey) {
        return rateKey.endsWith(".rate") ? rateKey.substring(0, rateKey.length() - ".rate".length()) + ".burst"
                : "the burst";
    }

    private static long tokens(String key, String value, String part) {
        int slash = part.indexOf('/');
        String tokens = slash < 0 ? "" : part.substring(0, slash).trim();
        if (!TOKENS.matcher(tokens).matches()) {
            throw notARate(key, value);
        }
        long n;
        try {
            n = Long.parseLong(tokens);
        } catch (NumberFormatException e) {
            throw notARate(key, value);
        }
        if (n < 1) {
            throw ConfigProblems.invalid(key, value, "has " + n + " tokens in \"" + part + "\"",
                    "at least 1 token per period, such as 100/1m or 10/1s");
        }
        return n;
    }

    private static Duration period(String key, String value, String part) {
        String text = part.substring(part.indexOf('/') + 1).trim();
        if (UNIT_ONLY.matcher(text).matches()) {
            text = "1" + text;
        }
        if (text.isEmpty() || text.indexOf('/') >= 0) {
            throw notARate(key, value);
        }
        Duration period = Durations.tryParse(text).orElseThrow(() -> notARate(key, value));
        if (period.isZero() || period.isNegative()) {
            throw ConfigProblems.invalid(key, value, "has the period \"" + text + "\"",
                    Durations.EXPECTED + " after the slash, as in 100/1m or 10/1s");
        }
        return period;
    }

    private static SluiceConfigException notARate(String key, String value) {
        return ConfigProblems.invalid(key, value, "is not a rate", EXPECTED);
    }
}
