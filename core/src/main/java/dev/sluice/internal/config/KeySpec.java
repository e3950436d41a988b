package dev.sluice.internal.config;

/**
 * How a policy derives its bucket key from a request ({@code sluice.limit.<policy>.key}). Immutable.
 *
 * @param type     the kind of key
 * @param argument header name, query or path parameter name, or bean name; empty for the others
 */
public record KeySpec(Type type, String argument) {

    public enum Type { IP, PRINCIPAL, HEADER, QUERY, PATH, PATH_PARAM, GLOBAL, BEAN }

    public static final KeySpec IP = new KeySpec(Type.IP, "");

    /** The key as written in configuration, e.g. {@code header:X-Api-Key}. */
    @Override
    public String toString() {
        return switch (type) {
            case HEADER -> "header:" + argument;
            case QUERY -> "query:" + argument;
            case PATH_PARAM -> "path-param:" + argument;
            case BEAN -> "bean:" + argument;
            default -> type.name().toLowerCase(java.util.Locale.ROOT);
        };
    }
}
