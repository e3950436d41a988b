package dev.sluice.internal.cdi;

import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A {@code @Locked} key template compiled against its method: literal text and placeholders, {@code {0}}
 * for a parameter by position or {@code {orderId}} by name. Braces are reserved for placeholders; there is
 * no escape. Immutable and thread-safe.
 *
 * <p>The rendered key is not trusted: the lock service passes it through {@code KeyMaterial} before it
 * becomes part of a Redis key.
 */
final class KeyTemplate {

    private final String source;
    /** A {@code String} literal or an {@code Integer} parameter index. */
    private final List<Object> parts;

    private KeyTemplate(String source, List<Object> parts) {
        this.source = source;
        this.parts = List.copyOf(parts);
    }

    /** A template that always renders {@code key}. */
    static KeyTemplate constant(String key) {
        return new KeyTemplate(key, List.of(key));
    }

    /**
     * Compiles {@code template} for {@code method}.
     *
     * @throws IllegalArgumentException saying what is wrong, e.g. an index past the last parameter or a
     *                                  name that is no parameter
     */
    static KeyTemplate compile(String template, Method method) {
        List<Object> parts = new ArrayList<>();
        StringBuilder literal = new StringBuilder();
        int i = 0;
        while (i < template.length()) {
            char c = template.charAt(i);
            if (c == '}') {
                throw new IllegalArgumentException("'}' at position " + i + " closes no '{'");
            }
            if (c != '{') {
                literal.append(c);
                i++;
                continue;
            }
            int close = template.indexOf('}', i + 1);
            if (close < 0) {
                throw new IllegalArgumentException("'{' at position " + i + " is never closed");
            }
            String placeholder = template.substring(i + 1, close);
            if (literal.length() > 0) {
                parts.add(literal.toString());
                literal.setLength(0);
            }
            parts.add(parameterIndex(placeholder, method));
            i = close + 1;
        }
        if (literal.length() > 0) {
            parts.add(literal.toString());
        }
        return new KeyTemplate(template, parts);
    }

    private static int parameterIndex(String placeholder, Method method) {
        Parameter[] parameters = method.getParameters();
        if (placeholder.isEmpty()) {
            throw new IllegalArgumentException("{} names no parameter; use {0} or {parameterName}");
        }
        if (placeholder.chars().allMatch(Character::isDigit)) {
            int index;
            try {
                index = Integer.parseInt(placeholder);
            } catch (NumberFormatException e) {
                index = Integer.MAX_VALUE;
            }
            if (index >= parameters.length) {
                throw new IllegalArgumentException("{" + placeholder + "} but the method has " + parameters.length
                        + " parameter" + (parameters.length == 1 ? "" : "s") + " (indexes start at 0)");
            }
            return index;
        }
        if (placeholder.contains("{")) {
            throw new IllegalArgumentException("'{' inside {" + placeholder + "}");
        }
        if (parameters.length > 0 && !parameters[0].isNamePresent()) {
            throw new IllegalArgumentException("{" + placeholder + "} names a parameter, but parameter names were "
                    + "not compiled into the class; compile with -parameters or use {0}, {1}, ...");
        }
        for (int p = 0; p < parameters.length; p++) {
            if (parameters[p].getName().equals(placeholder)) {
                return p;
            }
        }
        throw new IllegalArgumentException("{" + placeholder + "} names no parameter; the parameters are "
                + Arrays.stream(parameters).map(Parameter::getName).toList());
    }

    /** The key for one invocation; {@code null} arguments render as {@code null}. */
    String render(Object[] arguments) {
        if (parts.size() == 1 && parts.get(0) instanceof String s) {
            return s;
        }
        StringBuilder key = new StringBuilder();
        for (Object part : parts) {
            if (part instanceof Integer index) {
                key.append(arguments[index]);
            } else {
                key.append((String) part);
            }
        }
        return key.toString();
    }

    @Override
    public String toString() {
        return source;
    }
}
