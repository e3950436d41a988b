package dev.sluice.internal.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Small value parsers shared by the loaders, each failing with a message that names the key, the value and
 * the accepted form. Keywords ({@code true}, {@code deny}, {@code ietf}, {@code ip}...) are matched
 * ignoring case; nothing else is guessed ({@code yes} is not a boolean). Stateless and thread-safe.
 */
final class Values {

    private Values() {
    }

    static boolean bool(String key, String value) {
        if (value.equalsIgnoreCase("true")) {
            return true;
        }
        if (value.equalsIgnoreCase("false")) {
            return false;
        }
        throw ConfigProblems.invalid(key, value, "true or false");
    }

    /** A whole number in {@code [min, max]}. */
    static long whole(String key, String value, long min, long max) {
        String expected = max == Long.MAX_VALUE
                ? "a whole number of at least " + min
                : "a whole number from " + min + " to " + max;
        long n;
        try {
            n = Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw ConfigProblems.invalid(key, value, expected);
        }
        if (n < min || n > max) {
            throw ConfigProblems.invalid(key, value, expected);
        }
        return n;
    }

    static int wholeInt(String key, String value, int min) {
        return (int) whole(key, value, min, Integer.MAX_VALUE);
    }

    /** One of the enum's constants, written in any case ({@code deny} for {@code DENY}). */
    static <E extends Enum<E>> E oneOf(String key, String value, Class<E> type) {
        for (E e : type.getEnumConstants()) {
            if (e.name().equalsIgnoreCase(value)) {
                return e;
            }
        }
        List<String> accepted = new ArrayList<>();
        for (E e : type.getEnumConstants()) {
            accepted.add(e.name().toLowerCase(Locale.ROOT));
        }
        throw ConfigProblems.invalid(key, value, "one of " + String.join(", ", accepted));
    }

    /** Comma-separated items, trimmed; blank items (a trailing comma) are dropped. */
    static List<String> list(String value) {
        List<String> out = new ArrayList<>();
        for (String item : value.split(",", -1)) {
            String t = item.trim();
            if (!t.isEmpty()) {
                out.add(t);
            }
        }
        return out;
    }
}
