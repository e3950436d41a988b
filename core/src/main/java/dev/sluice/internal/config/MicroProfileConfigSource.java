package dev.sluice.internal.config;

import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@link ConfigSource} over the application's MicroProfile {@link Config}. This is the only class that
 * refers to MicroProfile Config; {@link ConfigSources#detect} loads it only after finding the API, so
 * core runs where MicroProfile Config is absent. Thread-safe (MicroProfile {@code Config} is).
 */
final class MicroProfileConfigSource implements ConfigSource {

    private final Config config;

    private MicroProfileConfigSource(Config config) {
        this.config = config;
    }

    /**
     * @throws RuntimeException when the API is present but no implementation answers (for example
     *                          {@code IllegalStateException: No ConfigProviderResolver implementation found})
     */
    static ConfigSource forClassLoader(ClassLoader cl) {
        return new MicroProfileConfigSource(ConfigProvider.getConfig(cl));
    }

    @Override
    public Optional<String> get(String key) {
        try {
            return config.getOptionalValue(key, String.class).map(String::trim).filter(v -> !v.isEmpty());
        } catch (IllegalArgumentException | NoSuchElementException e) {
            // An expression such as ${missing} that cannot be expanded. The implementation's message may
            // quote the raw value, which must not escape for secrets.
            String detail = key.endsWith("password") ? "" : " (" + e.getMessage() + ")";
            throw ConfigProblems.withoutValue(key, "MicroProfile Config could not resolve the value" + detail,
                    "a plain value or an expression whose properties exist");
        }
    }

    /**
     * Names listed by the configuration's sources, less the ones a source derives from environment
     * variables. SmallRye Config lists {@code SLUICE_LIMIT_MY_API_RATE} also as
     * {@code sluice.limit.my.api.rate}, a guess that would turn policy {@code my-api} into {@code my.api}
     * (and {@code pool.max-total} into an unknown {@code pool.max.total}). A source that lists a name
     * together with its environment-variable form is taken to have derived it; such variables still
     * override keys that are looked up, exactly as in the fallback chain.
     */
    @Override
    public Set<String> names() {
        Set<String> names = new TreeSet<>();
        for (org.eclipse.microprofile.config.spi.ConfigSource source : config.getConfigSources()) {
            Set<String> listed = source.getPropertyNames();
            for (String name : listed) {
                if (name.startsWith(ConfigSources.PREFIX) && !listed.contains(EnvironmentConfigSource.envName(name))) {
                    names.add(name);
                }
            }
        }
        return names;
    }

    @Override
    public String toString() {
        return "MicroProfile Config";
    }
}
