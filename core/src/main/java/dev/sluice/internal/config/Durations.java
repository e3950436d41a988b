package dev.sluice.internal.config;

import dev.sluice.SluiceConfigException;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one place where Sluice reads durations from configuration and annotations.
 *
 * <p>Accepted forms: a whole number followed by a unit, {@code ms}, {@code s}, {@code m}, {@code h} or
 * {@code d} ({@code 250ms}, {@code 2s}, {@code 5m}, {@code 1h}, {@code 7d}), or ISO-8601
 * ({@code PT2S}, {@code PT0.5S}). Units are lower-case so that {@code m} can never be read as months.
 * Durations must fit in a {@code long} of nanoseconds (about 292 years), because the engines count in
 * nanoseconds and microseconds.
 *
 * <p>Stateless and thread-safe.
 */
public final class Durations {

    /** The accepted form, as printed in error messages for positive durations. */
    public static final String EXPECTED = "a positive duration such as 250ms, 2s, 5m, 1h or PT2S";

    /** The shortest lease of a lock or semaphore permit: leases are counted in whole milliseconds in Redis. */
    public static final Duration MIN_LEASE = Duration.ofMillis(1);

    /**
     * The longest lease of a lock or semaphore permit: ten years, far beyond any real hold, and far enough from
     * the nanosecond clock's range that a deadline computed from it can never wrap around.
     */
    public static final Duration MAX_LEASE = Duration.ofDays(3650);

    /** The accepted form of a lease, as printed in error messages. */
    public static final String LEASE_RANGE = "a duration from 1ms to 3650d (counted in whole milliseconds) such as"
            + " 250ms, 2s, 5m, 1h or PT2S";

    /**
     * The longest wait for a lock or semaphore permit: ten years, so that the deadline, the start on the
     * nanosecond clock plus the wait, can never wrap around to a time already past.
     */
    public static final Duration MAX_WAIT = Duration.ofDays(3650);

    /** The accepted form of a maximum wait, as printed in error messages. */
    public static final String WAIT_RANGE = "0 (try once) or a duration up to 3650d such as 250ms, 2s, 5m, 1h or PT2S";

    private static final Pattern SIMPLE = Pattern.compile("(\\d{1,19})(ms|s|m|h|d)");

    private Durations() {
    }

    /**
     * Parses a duration that must be strictly positive (leases, timeouts, rate periods).
     *
     * @param key   the configuration key (or annotation member) the value came from, for the message
     * @param value the text as written
     * @throws SluiceConfigException when the value is not a duration, is zero or negative, or is too long
     */
    public static Duration parse(String key, String value) {
        Duration d = parseChecked(key, value, EXPECTED);
        if (d == null || d.isZero() || d.isNegative()) {
            throw ConfigProblems.invalid(key, value, EXPECTED);
        }
        return d;
    }

    /**
     * Parses the lease of a lock or semaphore permit: {@link #MIN_LEASE} to {@link #MAX_LEASE}. A lease below
     * one millisecond would be 0 ms in Redis, and every acquisition would fail at run time.
     *
     * @throws SluiceConfigException naming the key, the value and {@link #LEASE_RANGE} otherwise
     */
    public static Duration parseLease(String key, String value) {
        Duration d = parseChecked(key, value, LEASE_RANGE);
        if (d == null || d.compareTo(MIN_LEASE) < 0 || d.compareTo(MAX_LEASE) > 0) {
            throw ConfigProblems.invalid(key, value, LEASE_RANGE);
        }
        return d;
    }

    /**
     * Parses the maximum wait for a lock or semaphore permit: zero ("try once") to {@link #MAX_WAIT}.
     *
     * @throws SluiceConfigException naming the key, the value and {@link #WAIT_RANGE} otherwise
     */
    public static Duration parseWait(String key, String value) {
        if (value != null && value.trim().equals("0")) {
            return Duration.ZERO;
        }
        Duration d = parseChecked(key, value, WAIT_RANGE);
        if (d == null || d.isNegative() || d.compareTo(MAX_WAIT) > 0) {
            throw ConfigProblems.invalid(key, value, WAIT_RANGE);
        }
        return d;
    }

    /**
     * The duration written in {@code text}, or empty when it is not a duration in an accepted form or does
     * not fit in nanoseconds. Zero and negative ISO values are returned as they are; callers decide.
     */
    static Optional<Duration> tryParse(String text) {
        try {
            return Optional.ofNullable(parseRaw(text));
        } catch (ArithmeticException e) {
            return Optional.empty();
        }
    }

    private static Duration parseChecked(String key, String value, String expected) {
        try {
            return parseRaw(value);
        } catch (ArithmeticException e) {
            throw ConfigProblems.invalid(key, value, expected + ", of at most 106751d (about 292 years)");
        }
    }

    /**
     * @return the duration, or null when {@code text} is not in an accepted form
     * @throws ArithmeticException when it is well-formed but does not fit in a long of nanoseconds
     */
    private static Duration parseRaw(String text) {
        if (text == null) {
            return null;
        }
        String t = text.trim();
        Matcher m = SIMPLE.matcher(t);
        Duration d;
        if (m.matches()) {
            long n;
            try {
                n = Long.parseLong(m.group(1));
            } catch (NumberFormatException e) {
                throw new ArithmeticException("too many digits");
            }
            d = switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
        } else if (t.startsWith("P") || t.startsWith("-P") || t.startsWith("+P")) {
            try {
                d = Duration.parse(t);
            } catch (DateTimeParseException e) {
                // java.time reports numeric overflow of a well-formed value the same way as bad syntax
                if (e.getCause() instanceof ArithmeticException) {
                    throw new ArithmeticException("too long");
                }
                return null;
            }
        } else {
            return null;
        }
        d.toNanos(); // throws ArithmeticException when the engines could not count it
        return d;
    }
}
