package dev.sluice.internal.config;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Environment variables, looked up with MicroProfile Config's mapping: the exact key, then the key with
 * every character other than {@code [A-Za-z0-9]} replaced by {@code _}, then that upper-cased
 * ({@code sluice.limit.api.rate} is found as {@code SLUICE_LIMIT_API_RATE}).
 *
 * <p>{@link #names()} lists only variables named exactly like a key ({@code sluice.limit.api.rate}):
 * {@code SLUICE_LIMIT_MY_API_RATE} cannot be mapped back to one name ({@code my.api}, {@code my-api} or
 * {@code my_api}), so upper-case variables override keys of policies that another source names but do
 * not create policies. Immutable: the map is copied at construction.
 */
final class EnvironmentConfigSource implements ConfigSource {

    private final Map<String, String> env;

    /** @param env the variables, normally {@link System#getenv()}; tests pass their own */
    EnvironmentConfigSource(Map<String, String> env) {
        this.env = Map.copyOf(env);
    }

    @Override
    public Optional<String> get(String key) {
        String value = env.get(key);
        if (value == null) {
            value = env.get(sanitized(key));
            if (value == null) {
                value = env.get(envName(key));
            }
        }
        return ConfigSources.clean(value);
    }

    private static String sanitized(String key) {
        return key.replaceAll("[^A-Za-z0-9]", "_");
    }

    /** The upper-case variable name MicroProfile Config maps {@code key} to: {@code SLUICE_LIMIT_API_RATE}. */
    static String envName(String key) {
        return sanitized(key).toUpperCase(Locale.ROOT);
    }

    @Override
    public Set<String> names() {
        Set<String> names = new TreeSet<>();
        for (String name : env.keySet()) {
            if (name.startsWith(ConfigSources.PREFIX)) {
                names.add(name);
            }
        }
        return names;
    }

    @Override
    public String toString() {
        return "environment variables";
    }
}
