package dev.sluice.filter;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Reads one parameter from a raw query string. The filter does not call
 * {@code ServletRequest.getParameter}, which would read and consume a form-encoded request body that the
 * application may want to read itself. Stateless and thread-safe.
 */
final class QueryStrings {

    private QueryStrings() {
    }

    /**
     * The first value of {@code name} in {@code query} ({@code a=1&b=2}, UTF-8 percent-encoding, {@code +}
     * as space); a parameter without {@code =} has the empty value. A value with a malformed escape is
     * returned undecoded rather than failing the request.
     */
    static Optional<String> first(String query, String name) {
        if (query == null || query.isEmpty()) {
            return Optional.empty();
        }
        int start = 0;
        while (start <= query.length()) {
            int end = query.indexOf('&', start);
            if (end < 0) {
                end = query.length();
            }
            int eq = query.indexOf('=', start);
            int nameEnd = eq >= 0 && eq < end ? eq : end;
            if (decode(query.substring(start, nameEnd)).equals(name)) {
                return Optional.of(nameEnd == end ? "" : decode(query.substring(nameEnd + 1, end)));
            }
            start = end + 1;
        }
        return Optional.empty();
    }

    private static String decode(String s) {
        if (s.indexOf('%') < 0 && s.indexOf('+') < 0) {
            return s;
        }
        try {
            return URLDecoder.decode(s, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return s;
        }
    }
}
