package dev.sluice.internal.http;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads the hop chain out of {@code Forwarded} (RFC 7239) or {@code X-Forwarded-For}, right-most
 * (nearest) hop first. Each hop is the text of its node: an address, possibly with a port, or anything
 * a proxy wrote ({@code unknown}, an obfuscated {@code _id}); judging it is left to the caller.
 *
 * <p>Both headers are read element by element from their end, because the nearest elements are the ones a
 * trusted proxy wrote and everything left of them may be the client's: whatever the client wrote (an
 * unterminated quote, a megabyte of padding) cannot change how the elements after it read. The first element
 * that cannot be read (malformed, or reaching past the bounds) is returned as {@link #NO_FOR}, and nothing
 * left of it is read. The bounds: at most {@link #MAX_HOPS} hops, and at most {@link #MAX_HEADER_CHARS}
 * characters from the end (one separator counted per line); a chain that goes on beyond {@link #MAX_HOPS}
 * hops ends with {@link #NO_FOR} too, so that the walk knows it was not read to its start.
 * Stateless and thread-safe.
 */
final class ForwardingHeaders {

    /** More hops than any real proxy chain; the walk stops there. */
    static final int MAX_HOPS = 32;

    /** Most characters read from the end of the header: 8 KiB, more than any real proxy chain writes. */
    static final int MAX_HEADER_CHARS = 8192;

    /**
     * Marker for a hop that did not say who its client was: an element without {@code for=}, a malformed or
     * cut element, the hops beyond {@link #MAX_HOPS}.
     */
    static final String NO_FOR = "";

    private ForwardingHeaders() {
    }

    /**
     * The {@code for=} nodes of the {@code Forwarded} header lines, nearest hop first; empty when the
     * header is absent or holds no element at all. An element without {@code for=} yields {@link #NO_FOR}; a
     * malformed or cut one yields {@link #NO_FOR} and ends the list.
     */
    static List<String> forwardedFor(List<String> lines) {
        List<String> nearestFirst = new ArrayList<>();
        int budget = MAX_HEADER_CHARS;
        for (int l = lines.size() - 1; l >= 0; l--) {
            String line = lines.get(l);
            ElementReader elements = new ElementReader(line, Math.max(0, line.length() + 1 - budget));
            for (String node = elements.previous(); node != null; node = elements.previous()) {
                if (node == ElementReader.EMPTY) {
                    continue;
                }
                if (node == ElementReader.MALFORMED || nearestFirst.size() == MAX_HOPS) {
                    nearestFirst.add(NO_FOR);
                    return nearestFirst;
                }
                nearestFirst.add(node);
            }
            budget -= line.length() + 1;
        }
        return nearestFirst;
    }

    /**
     * The entries of the {@code X-Forwarded-For} header lines, nearest hop first, stripped of optional
     * whitespace; empty list elements are skipped, as RFC 9110's list rule asks. An entry that the length bound
     * cuts, or one beyond {@link #MAX_HOPS}, is returned as {@link #NO_FOR} and ends the list.
     */
    static List<String> xForwardedFor(List<String> lines) {
        List<String> nearestFirst = new ArrayList<>();
        int budget = MAX_HEADER_CHARS;
        for (int l = lines.size() - 1; l >= 0; l--) {
            String line = lines.get(l);
            int end = line.length();
            while (true) {
                int comma = line.lastIndexOf(',', end - 1);
                budget -= end - comma;
                String entry = line.substring(comma + 1, end).strip();
                if (budget < 0 || !entry.isEmpty() && nearestFirst.size() == MAX_HOPS) {
                    nearestFirst.add(NO_FOR);
                    return nearestFirst;
                }
                if (!entry.isEmpty()) {
                    nearestFirst.add(entry);
                }
                if (comma < 0) {
                    break;
                }
                end = comma;
            }
        }
        return nearestFirst;
    }

    /**
     * RFC 7239 section 4 read backwards, one element at a time: {@code 1#forwarded-element}, each
     * {@code [pair] *(";" [pair])}, a pair being {@code token "=" (token / quoted-string)}. A quoted string is
     * found from its closing quote: its opening quote is the nearest quote to the left that is preceded by an
     * even number of backslashes (an odd number escapes it), which is exact for every well-formed value.
     * Unquoted values are read leniently up to the next delimiter, because some proxies write
     * {@code for=[2001:db8::1]} without the required quotes; the value is validated as an address later anyway.
     * Characters left of {@code floor} are beyond the length bound: reaching them makes the element
     * {@link #MALFORMED}. Not thread-safe; one per line.
     */
    private static final class ElementReader {
        /** An element that cannot be read: malformed, or reaching past the floor. */
        static final String MALFORMED = new String("malformed");
        /** Nothing but whitespace between two commas. */
        static final String EMPTY = new String("empty");

        private final String s;
        private final int floor;
        private int pos;

        ElementReader(String s, int floor) {
            this.s = s;
            this.floor = floor;
            this.pos = s.length();
        }

        /**
         * The element left of the current position: its {@code for} value, {@link #NO_FOR} without one,
         * {@link #EMPTY} or {@link #MALFORMED}; null once the start of the line is reached.
         */
        String previous() {
            skipWhitespace();
            if (cut()) {
                return MALFORMED;
            }
            if (pos == 0) {
                return null;
            }
            if (s.charAt(pos - 1) == ',') {
                pos--;
                return EMPTY;
            }
            String node = NO_FOR;
            boolean seenFor = false;
            while (true) {
                skipWhitespace();
                if (cut()) {
                    return MALFORMED;
                }
                if (pos == 0) {
                    return node;
                }
                char c = s.charAt(pos - 1);
                if (c == ',') {
                    pos--;
                    return node;
                }
                if (c == ';') {
                    pos--;
                    continue;
                }
                String value = c == '"' ? quoted() : unquoted();
                if (value == null || cut() || pos == 0 || s.charAt(pos - 1) != '=') {
                    return MALFORMED;
                }
                pos--;
                int nameEnd = pos;
                while (pos > floor && isTchar(s.charAt(pos - 1))) {
                    pos--;
                }
                if (pos == nameEnd || cut()) {
                    return MALFORMED;
                }
                if (s.regionMatches(true, pos, "for", 0, 3) && nameEnd - pos == 3) {
                    if (seenFor) {
                        return MALFORMED; // RFC 7239 section 4: a parameter MUST NOT occur twice in an element
                    }
                    seenFor = true;
                    node = value;
                }
                skipWhitespace();
                if (cut()) {
                    return MALFORMED;
                }
                if (pos > 0 && s.charAt(pos - 1) != ';' && s.charAt(pos - 1) != ',') {
                    return MALFORMED;
                }
            }
        }

        /** Whether the next character to read is beyond the length bound. */
        private boolean cut() {
            return floor > 0 && pos <= floor;
        }

        /** The quoted string ending at {@code pos}, unescaped; null when malformed or cut. */
        private String quoted() {
            int close = pos - 1;
            int before = backslashesBefore(close);
            if (before < 0 || before % 2 == 1) {
                return null; // an escaped quote ends no value
            }
            for (int open = close - 1; open >= floor; open--) {
                if (s.charAt(open) == '"') {
                    int backslashes = backslashesBefore(open);
                    if (backslashes < 0) {
                        return null;
                    }
                    if (backslashes % 2 == 0) {
                        pos = open;
                        return unescape(open + 1, close);
                    }
                }
            }
            return null;
        }

        /** How many backslashes precede {@code index}; -1 when their run reaches past the floor. */
        private int backslashesBefore(int index) {
            int i = index - 1;
            while (i >= floor && s.charAt(i) == '\\') {
                i--;
            }
            return i < floor && floor > 0 ? -1 : index - 1 - i;
        }

        private String unescape(int from, int to) {
            StringBuilder out = new StringBuilder(to - from);
            for (int i = from; i < to; i++) {
                char c = s.charAt(i);
                if (c == '\\') {
                    c = s.charAt(++i); // the even run before the closing quote leaves no backslash unpaired
                }
                if (c < 0x20 && c != '\t' || c == 0x7F) {
                    return null;
                }
                out.append(c);
            }
            return out.toString();
        }

        /** The token-ish value ending at {@code pos}; null when empty or cut. */
        private String unquoted() {
            int end = pos;
            int start = pos;
            while (start > floor) {
                char c = s.charAt(start - 1);
                if (c == ';' || c == ',' || c == ' ' || c == '\t' || c == '"' || c == '=' || c < 0x20 || c == 0x7F) {
                    break;
                }
                start--;
            }
            if (start == end || floor > 0 && start == floor) {
                return null;
            }
            pos = start;
            return s.substring(start, end);
        }

        private void skipWhitespace() {
            while (pos > floor && (s.charAt(pos - 1) == ' ' || s.charAt(pos - 1) == '\t')) {
                pos--;
            }
        }

        private static boolean isTchar(char c) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
        }
    }
}
