package dev.sluice.test;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict parser for Structured Field Lists (RFC 9651 section 4.2.1), written from the RFC so that
 * tests check the RateLimit fields against the syntax itself rather than against our own formatter.
 * Any deviation throws {@link IllegalArgumentException} naming the position.
 *
 * <p>Bare items map to Java as: Integer to {@code Long}, Decimal to {@code BigDecimal}, String to
 * {@code String}, Token to {@link Token}, Byte Sequence to {@code byte[]}, Boolean to {@code Boolean};
 * an Inner List is a {@code List<Item>}. Stateless and thread-safe.
 */
public final class StructuredFields {

    /** A Token bare item (distinct from a String). */
    public record Token(String value) {
    }

    /** A list member: a bare item or inner list, with its parameters in order. */
    public record Item(Object value, Map<String, Object> parameters) {

        /** The parameter {@code key}, or {@code null}. */
        public Object parameter(String key) {
            return parameters.get(key);
        }
    }

    private final String s;
    private int pos;

    private StructuredFields(String s) {
        this.s = s;
    }

    /** Parses one field value (several field lines must be joined with {@code ", "} first). */
    public static List<Item> parseList(String fieldValue) {
        StructuredFields p = new StructuredFields(fieldValue);
        List<Item> out = p.list();
        return out;
    }

    private List<Item> list() {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) > 0x7E || s.charAt(i) < 0x20 && s.charAt(i) != '\t') {
                throw fail("non-ASCII or control character");
            }
        }
        skipSp();
        List<Item> members = new ArrayList<>();
        while (pos < s.length()) {
            members.add(peek() == '(' ? innerList() : item());
            skipOws();
            if (pos == s.length()) {
                return members;
            }
            expect(',');
            skipOws();
            if (pos == s.length()) {
                throw fail("trailing comma");
            }
        }
        return members;
    }

    private Item innerList() {
        expect('(');
        List<Item> items = new ArrayList<>();
        while (pos < s.length()) {
            skipSp();
            if (peek() == ')') {
                pos++;
                return new Item(items, parameters());
            }
            items.add(item());
            if (pos < s.length() && peek() != ' ' && peek() != ')') {
                throw fail("expected SP or ) in inner list");
            }
        }
        throw fail("unterminated inner list");
    }

    private Item item() {
        return new Item(bareItem(), parameters());
    }

    private Map<String, Object> parameters() {
        Map<String, Object> params = new LinkedHashMap<>();
        while (pos < s.length() && peek() == ';') {
            pos++;
            skipSp();
            String key = key();
            Object value = Boolean.TRUE;
            if (pos < s.length() && peek() == '=') {
                pos++;
                value = bareItem();
            }
            params.put(key, value);
        }
        return params;
    }

    private String key() {
        if (pos == s.length() || !(isLcalpha(peek()) || peek() == '*')) {
            throw fail("expected a key");
        }
        int start = pos++;
        while (pos < s.length() && (isLcalpha(peek()) || isDigit(peek()) || "_-.*".indexOf(peek()) >= 0)) {
            pos++;
        }
        return s.substring(start, pos);
    }

    private Object bareItem() {
        if (pos == s.length()) {
            throw fail("expected a bare item");
        }
        char c = peek();
        if (c == '-' || isDigit(c)) {
            return number();
        }
        if (c == '"') {
            return string();
        }
        if (c == '*' || Character.isLetter(c) && c < 0x80) {
            return token();
        }
        if (c == ':') {
            return bytes();
        }
        if (c == '?') {
            pos++;
            char b = pos < s.length() ? s.charAt(pos++) : 'x';
            if (b == '1' || b == '0') {
                return b == '1';
            }
            throw fail("bad boolean");
        }
        throw fail("unexpected '" + c + "'");
    }

    private Object number() {
        int start = pos;
        if (peek() == '-') {
            pos++;
        }
        int digitsStart = pos;
        boolean decimal = false;
        while (pos < s.length() && (isDigit(peek()) || peek() == '.' && !decimal)) {
            if (peek() == '.') {
                if (pos - digitsStart > 12) {
                    throw fail("decimal integer part too long");
                }
                decimal = true;
            }
            pos++;
        }
        String text = s.substring(start, pos);
        String digits = s.substring(digitsStart, pos);
        if (digits.isEmpty() || !isDigit(digits.charAt(0))) {
            throw fail("bad number");
        }
        if (!decimal) {
            if (digits.length() > 15) {
                throw fail("integer too long");
            }
            return Long.parseLong(text);
        }
        int fraction = digits.length() - digits.indexOf('.') - 1;
        if (fraction < 1 || fraction > 3) {
            throw fail("bad decimal fraction");
        }
        return new BigDecimal(text);
    }

    private String string() {
        pos++;
        StringBuilder out = new StringBuilder();
        while (pos < s.length()) {
            char c = s.charAt(pos++);
            if (c == '\\') {
                if (pos == s.length() || (peek() != '"' && peek() != '\\')) {
                    throw fail("bad escape");
                }
                out.append(s.charAt(pos++));
            } else if (c == '"') {
                return out.toString();
            } else if (c < 0x20 || c > 0x7E) {
                throw fail("bad string character");
            } else {
                out.append(c);
            }
        }
        throw fail("unterminated string");
    }

    private Token token() {
        int start = pos++;
        while (pos < s.length() && (isTchar(peek()) || peek() == ':' || peek() == '/')) {
            pos++;
        }
        return new Token(s.substring(start, pos));
    }

    private byte[] bytes() {
        int start = ++pos;
        int end = s.indexOf(':', start);
        if (end < 0) {
            throw fail("unterminated byte sequence");
        }
        pos = end + 1;
        return Base64.getDecoder().decode(s.substring(start, end).getBytes(StandardCharsets.US_ASCII));
    }

    private void expect(char c) {
        if (pos == s.length() || peek() != c) {
            throw fail("expected '" + c + "'");
        }
        pos++;
    }

    private char peek() {
        return s.charAt(pos);
    }

    private void skipSp() {
        while (pos < s.length() && peek() == ' ') {
            pos++;
        }
    }

    private void skipOws() {
        while (pos < s.length() && (peek() == ' ' || peek() == '\t')) {
            pos++;
        }
    }

    private IllegalArgumentException fail(String why) {
        return new IllegalArgumentException("not a Structured Field List: " + why + " at " + pos + " in [" + s + "]");
    }

    private static boolean isLcalpha(char c) {
        return c >= 'a' && c <= 'z';
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isTchar(char c) {
        return Character.isLetterOrDigit(c) && c < 0x80 || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
    }
}
