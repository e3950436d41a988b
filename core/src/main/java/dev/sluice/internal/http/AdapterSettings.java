package dev.sluice.internal.http;

import dev.sluice.SluiceConfigException;
import dev.sluice.internal.config.ConfigSource;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.HeaderMode;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Where one adapter reads its settings, read again on every reload: the servlet filter's init-params over the
 * application's configuration, a JAX-RS application's {@code sluice.*} properties where servlet context-params
 * stand in the fallback chain, or the CDI extension's loader. The fallback chain is detected again on every
 * {@link #read()}, because it reads system properties when it is built. Immutable and thread-safe.
 */
public final class AdapterSettings {

    private final ClassLoader loader;
    /** The layering to read, built anew for each reading; null when a loader gives whole configurations. */
    private final Supplier<ConfigSource> sources;
    private final Supplier<AdapterConfig> reader;

    private AdapterSettings(ClassLoader loader, Supplier<ConfigSource> sources, Supplier<AdapterConfig> reader) {
        this.loader = loader;
        this.sources = sources;
        this.reader = reader;
    }

    /**
     * A servlet filter's settings: its init-params win over every other source (MicroProfile Config, or
     * context-params, system properties, environment, {@code META-INF/microprofile-config.properties}).
     */
    public static AdapterSettings servlet(ClassLoader loader, Map<String, String> initParameters,
            Map<String, String> contextParameters) {
        // copies: a container may hand out live views; HashMap, not Map.copyOf, which refuses a null value
        ConfigSource init = ConfigSources.of(new HashMap<>(initParameters));
        ConfigSource context = ConfigSources.of(new HashMap<>(contextParameters));
        return over(loader, () -> ConfigSources.layered(init, ConfigSources.detect(loader, context)));
    }

    /**
     * A JAX-RS application's settings: those of its properties named {@code sluice.*} stand where servlet
     * context-params stand in the fallback chain.
     */
    public static AdapterSettings application(ClassLoader loader, Map<String, ?> applicationProperties) {
        ConfigSource properties = sluiceProperties(applicationProperties);
        return over(loader, () -> ConfigSources.detect(loader, properties));
    }

    /** Settings read from {@code sources}, a layering built anew for each reading. */
    public static AdapterSettings over(ClassLoader loader, Supplier<ConfigSource> sources) {
        return new AdapterSettings(loader, sources, () -> AdapterConfig.load(sources.get()));
    }

    /** Settings that a loader gives as a whole configuration (the CDI extension's, which tests replace). */
    public static AdapterSettings loaded(ClassLoader loader, Function<ClassLoader, SluiceConfig> configLoader) {
        return new AdapterSettings(loader, null, () -> AdapterConfig.of(configLoader.apply(loader)));
    }

    /**
     * Reads and validates the settings now.
     *
     * @throws SluiceConfigException naming key, value and accepted form when a value is bad
     */
    public AdapterConfig read() {
        return reader.get();
    }

    /** The application's class loader: the context class loader while a reload reads these settings. */
    public ClassLoader loader() {
        return loader;
    }

    /**
     * How Sluice's exceptions are answered in this application ({@code sluice.headers}), read without starting
     * anything: a bad value is left for {@link #read()} to report with the rest of the configuration, and
     * answers in the default mode meanwhile.
     */
    public ExceptionResponses.InMode exceptionResponses() {
        HeaderMode mode;
        try {
            mode = sources == null ? read().config().headers() : SluiceConfigLoader.headerMode(sources.get());
        } catch (SluiceConfigException e) {
            mode = HeaderMode.IETF;
        }
        return new ExceptionResponses.InMode(mode);
    }

    private static ConfigSource sluiceProperties(Map<String, ?> properties) {
        Map<String, String> sluice = new TreeMap<>();
        properties.forEach((name, value) -> {
            if (name.startsWith(ConfigSources.PREFIX) && value != null) {
                sluice.put(name, value.toString());
            }
        });
        return ConfigSources.of(sluice);
    }
}
