package dev.sluice.internal.http;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads the hop chain out of {@code Forwarded} (RFC 7239) or {@code X-Forwarded-For}, right-most
 * (nearest) hop first. Each hop is the text of its node: an address, possibly with a port, or anything
 * a proxy wrote ({@code unknown}, an obfuscated {@code _id}); judging it is left to the caller.
 *
 * <p>Both readers bound their work: at most {@link #MAX_HOPS} hops are returned, and at most
 * {@link #MAX_HEADER_CHARS} characters read. A {@code Forwarded} header longer than that is not read at
 * all (it cannot be split from the right: a quoted string may hide any comma). {@code X-Forwarded-For} is
 * read from its end; an entry that the bound cuts is returned as {@link #NO_FOR}, so that the walk stops
 * before a truncated address. Stateless and thread-safe.
 */
final class ForwardingHeaders {

    /** More hops than any real proxy chain; the walk stops there. */
    static final int MAX_HOPS = 32;

    /** Most characters read from the end of the header: 8 KiB, more than any real proxy chain writes. */
    static final int MAX_HEADER_CHARS = 8192;

    /** Marker for a hop that did not say who its client was (an element without {@code for=}, a cut entry). */
    static final String NO_FOR = "";

    private ForwardingHeaders() {
    }

    /**
     * The {@code for=} nodes of the {@code Forwarded} header lines, nearest hop first; empty when the
     * header is absent, malformed, too long, or carries no {@code for=} at all (it then does not count as
     * present). An element without {@code for=} yields {@link #NO_FOR}.
     */
    static List<String> forwardedFor(List<String> lines) {
        if (lines.isEmpty()) {
            return List.of();
        }
        int total = 0;
        for (String line : lines) {
            total += line.length() + 1;
            if (total > MAX_HEADER_CHARS) {
                return List.of();
            }
        }
        List<String> nodes = new ForwardedParser(String.join(",", lines)).parse();
        if (nodes == null || nodes.stream().allMatch(NO_FOR::equals)) {
            return List.of();
        }
        List<String> nearestFirst = new ArrayList<>(Math.min(nodes.size(), MAX_HOPS));
        for (int i = nodes.size() - 1; i >= 0 && nearestFirst.size() < MAX_HOPS; i--) {
            nearestFirst.add(nodes.get(i));
        }
        return nearestFirst;
    }

    /**
     * The entries of the {@code X-Forwarded-For} header lines, nearest hop first, stripped of optional
     * whitespace; empty list elements are skipped, as RFC 9110's list rule asks.
     */
    static List<String> xForwardedFor(List<String> lines) {
        List<String> nearestFirst = new ArrayList<>();
        int budget = MAX_HEADER_CHARS;
        for (int l = lines.size() - 1; l >= 0 && nearestFirst.size() < MAX_HOPS; l--) {
            String line = lines.get(l);
            int end = line.length();
            while (nearestFirst.size() < MAX_HOPS) {
                int comma = line.lastIndexOf(',', end - 1);
                budget -= end - comma;
                if (budget < 0) {
                    nearestFirst.add(NO_FOR);
                    return nearestFirst;
                }
                String entry = line.substring(comma + 1, end).strip();
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
     * RFC 7239 section 4: {@code 1#forwarded-element}, each {@code [pair] *(";" [pair])}, a pair being
     * {@code token "=" (token / quoted-string)}. Unquoted values are read leniently up to the next
     * delimiter, because some proxies write {@code for=[2001:db8::1]} without the required quotes; the
     * value is validated as an address later anyway.
     */
    private static final class ForwardedParser {
        private final String s;
        private int pos;

        ForwardedParser(String s) {
            this.s = s;
        }

        /** The {@code for} value of each element, in order; {@code null} when malformed. */
        List<String> parse() {
            List<String> nodes = new ArrayList<>();
            while (true) {
                skipWhitespace();
                if (pos == s.length()) {
                    return nodes;
                }
                if (s.charAt(pos) == ',') {
                    pos++;
                    continue;
                }
                String node = element();
                if (node == null) {
                    return null;
                }
                nodes.add(node);
            }
        }

        /** One element up to the next top-level comma; its {@code for} value or {@link #NO_FOR}. */
        private String element() {
            String node = NO_FOR;
            boolean seenFor = false;
            while (true) {
                skipWhitespace();
                if (pos == s.length() || s.charAt(pos) == ',') {
                    return node;
                }
                if (s.charAt(pos) == ';') {
                    pos++;
                    continue;
                }
                int nameStart = pos;
                while (pos < s.length() && isTchar(s.charAt(pos))) {
                    pos++;
                }
                if (pos == nameStart || pos == s.length() || s.charAt(pos) != '=') {
                    return null;
                }
                String name = s.substring(nameStart, pos).toLowerCase(Locale.ROOT);
                pos++;
                if (pos == s.length()) {
                    return null;
                }
                String value = s.charAt(pos) == '"' ? quoted() : unquoted();
                if (value == null) {
                    return null;
                }
                if (name.equals("for")) {
                    if (seenFor) {
                        return null; // RFC 7239 section 4: a parameter MUST NOT occur twice in an element
                    }
                    seenFor = true;
                    node = value;
                }
                skipWhitespace();
                if (pos < s.length() && s.charAt(pos) != ';' && s.charAt(pos) != ',') {
                    return null;
                }
            }
        }

        private String quoted() {
            StringBuilder out = new StringBuilder();
            pos++;
            while (pos < s.length()) {
                char c = s.charAt(pos++);
                if (c == '"') {
                    return out.toString();
                }
                if (c == '\\') {
                    if (pos == s.length()) {
                        return null;
                    }
                    c = s.charAt(pos++);
                }
                if (c < 0x20 && c != '\t' || c == 0x7F) {
                    return null;
                }
                out.append(c);
            }
            return null;
        }

        private String unquoted() {
            int start = pos;
            while (pos < s.length()) {
                char c = s.charAt(pos);
                if (c == ';' || c == ',' || c == ' ' || c == '\t' || c == '"' || c < 0x20 || c == 0x7F) {
                    break;
                }
                pos++;
            }
            return pos == start ? null : s.substring(start, pos);
        }

        private void skipWhitespace() {
            while (pos < s.length() && (s.charAt(pos) == ' ' || s.charAt(pos) == '\t')) {
                pos++;
            }
        }

        private static boolean isTchar(char c) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
        }
    }
}
