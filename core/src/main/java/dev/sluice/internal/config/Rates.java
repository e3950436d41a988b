package dev.sluice.internal.config;

import dev.sluice.SluiceConfigException;

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
 * <p>Limits: at least 1 token, and at most one token per microsecond ({@value #MAX_TOKENS_PER_SECOND}
 * tokens per second) per bandwidth, because the engines count the time between two tokens in whole
 * microseconds; and a full bucket (capacity times that interval) must refill within {@link #MAX_REFILL},
 * so that bucket times stay exact in Lua's doubles.
 *
 * <p>Stateless and thread-safe.
 */
public final class Rates {

    /** Fastest accepted bandwidth, in tokens per second. */
    public static final long MAX_TOKENS_PER_SECOND = 1_000_000;

    /** Longest time a full bucket of one bandwidth may take to refill: 36525 days. */
    public static final Duration MAX_REFILL = Duration.ofDays(36525);

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
                throw new SluiceConfigException(key, key + ": \"" + value + "\" is faster than one token per"
                        + " microsecond in \"" + p + "\"; expected at most " + MAX_TOKENS_PER_SECOND
                        + " tokens per second per bandwidth, because Sluice measures the time between two"
                        + " tokens in whole microseconds");
            }
            long capacity = out.isEmpty() && burst.isPresent() ? burst.getAsLong() : tokens;
            Bandwidth bandwidth = new Bandwidth(tokens, period, capacity);
            checkRefillTime(key, value, p, bandwidth, out.isEmpty() ? burst : OptionalLong.empty());
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
        long refillMicros;
        try {
            refillMicros = Math.multiplyExact(b.capacity(), b.intervalMicros());
        } catch (ArithmeticException e) {
            refillMicros = Long.MAX_VALUE;
        }
        if (refillMicros > MAX_REFILL.toNanos() / 1000) {
            throw new SluiceConfigException(key, key + ": \"" + value + "\"" + (burst.isPresent()
                    ? " with a burst of " + burst.getAsLong() : "") + " takes more than " + MAX_REFILL.toDays()
                    + "d to refill a full bucket in \"" + part + "\"; expected a rate and burst whose full bucket"
                    + " refills within " + MAX_REFILL.toDays() + "d (about 100 years), because Sluice counts"
                    + " bucket time in microseconds that must stay exact in Lua");
        }
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
            throw new SluiceConfigException(key, key + ": \"" + value + "\" has " + n + " tokens in \"" + part
                    + "\"; expected at least 1 token per period, such as 100/1m or 10/1s");
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
            throw new SluiceConfigException(key, key + ": \"" + value + "\" has the period \"" + text
                    + "\"; expected " + Durations.EXPECTED + " after the slash, as in 100/1m or 10/1s");
        }
        return period;
    }

    private static SluiceConfigException notARate(String key, String value) {
        return new SluiceConfigException(key, key + ": \"" + value + "\" is not a rate; expected " + EXPECTED);
    }
}
