package dev.sluice.internal.cdi;

import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A {@code @Locked} key template compiled against its method: literal text and placeholders, {@code {0}} for a
 * parameter by position, {@code {orderId}} by name, either followed by a property path ({@code {0.id}},
 * {@code {order.customer.id}}). Braces are reserved for placeholders; there is no escape. Immutable and
 * thread-safe.
 *
 * <p>Compiling refuses what would lock the wrong thing: a placeholder whose type would render by object
 * identity (an array, or a type with no {@code toString()} below {@code Object}; an interface counts as
 * rendering by value only when it redeclares {@code toString()}), since two equal arguments would then lock
 * two different keys; and two placeholders not separated by a punctuation mark.
 *
 * <p>Rendering is injective for a given template: different argument lists never give the same key. With a
 * single placeholder the value is written as it is (so {@code "order:{0}"} renders the key a caller of
 * {@code Sluice.lock("order:" + id)} would use). With several, each value has {@code %} and the first
 * character of every separator written as {@code %XX} (its hex code): reading the key from the left, each
 * value then ends at the first unescaped character of the separator that follows it, so the values can be
 * read back. A {@code null} argument, or a {@code null} along a property path, fails the call with
 * {@link IllegalArgumentException} rather than lock the key {@code "null"}.
 *
 * <p>The rendered key is not trusted: the lock service passes it through {@code KeyMaterial} before it
 * becomes part of a Redis key.
 */
final class KeyTemplate {

    private static final String SEPARATORS = "!\"#$&'()*+,-./:;<=>?@[\\]^_`|~";

    /** A parameter and the property path read from it. */
    private record Placeholder(String text, List<String> steps, int parameter, List<TemplateProperty> path) {
    }

    private final String source;
    private final String where;
    /** {@code String} literals and {@link Placeholder}s. */
    private final List<Object> parts;
    /** Characters written as %XX in values; empty when values are written as they are. */
    private final String escaped;

    private KeyTemplate(String source, String where, List<Object> parts, String escaped) {
        this.source = source;
        this.where = where;
        this.parts = List.copyOf(parts);
        this.escaped = escaped;
    }

    /** A template that always renders {@code key}. */
    static KeyTemplate constant(String key) {
        return new KeyTemplate(key, "", List.of(key), "");
    }

    /** Compiles {@code template} for {@code method}, described in messages by its declaring class. */
    static KeyTemplate compile(String template, Method method) {
        return compile(template, method, GuardedMethods.describe(method.getDeclaringClass(), method));
    }

    /**
     * Compiles {@code template} for {@code method}.
     *
     * @param where the method as messages at call time name it ({@code com.example.Orders#settle(Order)})
     * @throws IllegalArgumentException saying what is wrong, e.g. an index past the last parameter, a name
     *                                  that is no parameter, an unknown property or a type that renders by
     *                                  identity
     */
    static KeyTemplate compile(String template, Method method, String where) {
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
            if (literal.length() > 0) {
                parts.add(literal.toString());
                literal.setLength(0);
            }
            parts.add(placeholder(template.substring(i + 1, close), method));
            i = close + 1;
        }
        if (literal.length() > 0) {
            parts.add(literal.toString());
        }
        return new KeyTemplate(template, where, parts, escapedCharacters(parts));
    }

    /** {@code %} and the first character of every separator between two placeholders; empty if there is none. */
    private static String escapedCharacters(List<Object> parts) {
        StringBuilder escaped = new StringBuilder();
        Placeholder previous = null;
        for (int p = 0; p < parts.size(); p++) {
            Object part = parts.get(p);
            if (part instanceof Placeholder placeholder) {
                if (previous != null) {
                    throw new IllegalArgumentException("{" + previous.text() + "} and {" + placeholder.text()
                            + "} must be separated by a punctuation mark such as ':' (\"{" + previous.text() + "}:{"
                            + placeholder.text() + "}\"), or different arguments could give the same key");
                }
                previous = placeholder;
            } else if (previous != null && p + 1 < parts.size()) {
                char first = ((String) part).charAt(0);
                if (SEPARATORS.indexOf(first) < 0) {
                    throw new IllegalArgumentException("the text between {" + previous.text() + "} and {"
                            + ((Placeholder) parts.get(p + 1)).text() + "} must begin with a punctuation mark such as "
                            + "':', '/' or '-' (not '" + first + "'), or different arguments could give the same key");
                }
                if (escaped.indexOf(String.valueOf(first)) < 0) {
                    escaped.append(first);
                }
                previous = null;
            } else {
                previous = null;
            }
        }
        return escaped.length() == 0 ? "" : "%" + escaped;
    }

    private static Placeholder placeholder(String text, Method method) {
        if (text.isEmpty()) {
            throw new IllegalArgumentException("{} names no parameter; use {0} or {parameterName}");
        }
        if (text.contains("{")) {
            throw new IllegalArgumentException("'{' inside {" + text + "}");
        }
        String[] steps = text.split("\\.", -1);
        int parameter = parameterIndex(steps[0], method);
        Class<?> type = method.getParameterTypes()[parameter];
        List<TemplateProperty> path = new ArrayList<>();
        StringBuilder sofar = new StringBuilder(steps[0]);
        for (int s = 1; s < steps.length; s++) {
            sofar.append('.').append(steps[s]);
            if (!isIdentifier(steps[s])) {
                throw new IllegalArgumentException("{" + text + "}: \"" + steps[s] + "\" is not a property name");
            }
            TemplateProperty property = TemplateProperty.resolve(type, steps[s], "{" + sofar + "}");
            path.add(property);
            type = property.type();
        }
        String identity = identityProblem(text, type);
        if (identity != null) {
            throw new IllegalArgumentException(identity);
        }
        return new Placeholder(text, List.of(steps), parameter, path);
    }

    private static boolean isIdentifier(String s) {
        if (s.isEmpty() || !Character.isJavaIdentifierStart(s.charAt(0))) {
            return false;
        }
        return s.chars().skip(1).allMatch(Character::isJavaIdentifierPart);
    }

    private static int parameterIndex(String placeholder, Method method) {
        Parameter[] parameters = method.getParameters();
        if (!placeholder.isEmpty() && placeholder.chars().allMatch(Character::isDigit)) {
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

    /**
     * Why values of {@code type} cannot be a key, or null when they can. Equal values must give equal keys, and
     * {@code Object.toString()} gives each instance its own. An interface or abstract type is judged by what it
     * declares, not by what an implementation might add: the deployment cannot know the runtime classes.
     */
    static String identityProblem(String text, Class<?> type) {
        if (type.isPrimitive()) {
            return null;
        }
        String hint = "; use a property such as {" + text + ".id}";
        if (type.isArray()) {
            return "{" + text + "} is an array (" + type.getSimpleName() + "), which renders by object identity" + hint;
        }
        if (type.isInterface()) {
            boolean declared = Arrays.stream(type.getMethods())
                    .anyMatch(m -> m.getName().equals("toString") && m.getParameterCount() == 0);
            return declared ? null : "{" + text + "} is the interface " + type.getName() + ", which does not "
                    + "declare toString(), so its implementations may render by object identity" + hint
                    + ", or declare String toString() in the interface";
        }
        try {
            if (type.getMethod("toString").getDeclaringClass() != Object.class) {
                return null;
            }
        } catch (NoSuchMethodException impossible) {
            throw new IllegalStateException(impossible);
        }
        return "{" + text + "} is a " + type.getName() + ", which does not override toString(), so two equal "
                + "values would render as two different keys" + hint + ", or override toString()";
    }

    /**
     * The key for one invocation.
     *
     * @throws IllegalArgumentException when an argument, a property along a path or a {@code toString()} is null
     */
    String render(Object[] arguments) {
        if (parts.size() == 1 && parts.get(0) instanceof String s) {
            return s;
        }
        StringBuilder key = new StringBuilder();
        for (Object part : parts) {
            if (part instanceof Placeholder placeholder) {
                appendEscaped(key, value(placeholder, arguments));
            } else {
                key.append((String) part);
            }
        }
        return key.toString();
    }

    private String value(Placeholder placeholder, Object[] arguments) {
        Object value = arguments[placeholder.parameter()];
        List<TemplateProperty> path = placeholder.path();
        for (int step = 0; ; step++) {
            if (value == null) {
                throw nullPart(String.join(".", placeholder.steps().subList(0, step + 1)), " is null");
            }
            if (step == path.size()) {
                break;
            }
            value = path.get(step).read(value);
        }
        String text = value.toString();
        if (text == null) {
            throw nullPart(placeholder.text(), ".toString() returned null");
        }
        return text;
    }

    private IllegalArgumentException nullPart(String part, String what) {
        return new IllegalArgumentException("Cannot render the lock key \"" + source + "\" of " + where + ": {"
                + part + "}" + what + "; a lock key is never rendered from null");
    }

    private void appendEscaped(StringBuilder key, String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (escaped.indexOf(c) >= 0) {
                key.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xF, 16)));
            } else {
                key.append(c);
            }
        }
    }

    @Override
    public String toString() {
        return source;
    }
}
