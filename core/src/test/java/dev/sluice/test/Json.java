package dev.sluice.test;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small strict JSON reader (RFC 8259) for checking problem bodies in tests without a JSON library.
 * Objects become {@code Map<String, Object>} (insertion order), arrays {@code List<Object>}, numbers
 * {@code Long} when integral and {@code BigDecimal} otherwise, plus {@code String}, {@code Boolean} and
 * {@code null}. Throws {@link IllegalArgumentException} on any syntax error or duplicate member.
 * Stateless and thread-safe.
 */
public final class Json {

    private final String s;
    private int pos;

    private Json(String s) {
        this.s = s;
    }

    /** Parses a complete JSON text. */
    public static Object parse(String text) {
        Json p = new Json(text);
        p.ws();
        Object value = p.value();
        p.ws();
        if (p.pos != text.length()) {
            throw p.fail("trailing content");
        }
        return value;
    }

    /** Parses a JSON text that must be an object. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> parseObject(String text) {
        Object value = parse(text);
        if (!(value instanceof Map)) {
            throw new IllegalArgumentException("not a JSON object: " + text);
        }
        return (Map<String, Object>) value;
    }

    private Object value() {
        if (pos == s.length()) {
            throw fail("unexpected end");
        }
        char c = s.charAt(pos);
        switch (c) {
            case '{':
                return object();
            case '[':
                return array();
            case '"':
                return string();
            case 't':
                return literal("true", Boolean.TRUE);
            case 'f':
                return literal("false", Boolean.FALSE);
            case 'n':
                return literal("null", null);
            default:
                return number();
        }
    }

    private Map<String, Object> object() {
        pos++;
        Map<String, Object> out = new LinkedHashMap<>();
        ws();
        if (peek() == '}') {
            pos++;
            return out;
        }
        while (true) {
            ws();
            if (peek() != '"') {
                throw fail("expected a member name");
            }
            String name = string();
            ws();
            expect(':');
            ws();
            if (out.containsKey(name)) {
                throw fail("duplicate member " + name);
            }
            out.put(name, value());
            ws();
            if (peek() == '}') {
                pos++;
                return out;
            }
            expect(',');
        }
    }

    private List<Object> array() {
        pos++;
        List<Object> out = new ArrayList<>();
        ws();
        if (peek() == ']') {
            pos++;
            return out;
        }
        while (true) {
            ws();
            out.add(value());
            ws();
            if (peek() == ']') {
                pos++;
                return out;
            }
            expect(',');
        }
    }

    private String string() {
        pos++;
        StringBuilder out = new StringBuilder();
        while (pos < s.length()) {
            char c = s.charAt(pos++);
            if (c == '"') {
                return out.toString();
            }
            if (c < 0x20) {
                throw fail("unescaped control character");
            }
            if (c != '\\') {
                out.append(c);
                continue;
            }
            char e = pos < s.length() ? s.charAt(pos++) : 0;
            switch (e) {
                case '"', '\\', '/' -> out.append(e);
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'u' -> {
                    if (pos + 4 > s.length()) {
                        throw fail("short \\u escape");
                    }
                    out.append((char) Integer.parseInt(s.substring(pos, pos + 4), 16));
                    pos += 4;
                }
                default -> throw fail("bad escape");
            }
        }
        throw fail("unterminated string");
    }

    private Object number() {
        int start = pos;
        if (peek() == '-') {
            pos++;
        }
        while (pos < s.length() && "0123456789.eE+-".indexOf(s.charAt(pos)) >= 0) {
            pos++;
        }
        String text = s.substring(start, pos);
        if (!text.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?")) {
            throw fail("bad number " + text);
        }
        BigDecimal value = new BigDecimal(text);
        return text.matches("-?[0-9]+") ? (Object) value.longValueExact() : value;
    }

    private Object literal(String word, Object value) {
        if (!s.startsWith(word, pos)) {
            throw fail("bad literal");
        }
        pos += word.length();
        return value;
    }

    private void expect(char c) {
        if (peek() != c) {
            throw fail("expected '" + c + "'");
        }
        pos++;
    }

    private char peek() {
        if (pos >= s.length()) {
            throw fail("unexpected end");
        }
        return s.charAt(pos);
    }

    private void ws() {
        while (pos < s.length() && " \t\r\n".indexOf(s.charAt(pos)) >= 0) {
            pos++;
        }
    }

    private IllegalArgumentException fail(String why) {
        return new IllegalArgumentException("not JSON: " + why + " at " + pos);
    }
}
