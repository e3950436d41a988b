package dev.sluice.internal.http;

import dev.sluice.SluiceConfigException;
import dev.sluice.internal.config.ConfigSource;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;

/**
 * One validated reading of an adapter's {@link AdapterSettings}: the configuration, and the layering it was read
 * from (which JAX-RS reads again for the inline members of {@code @RateLimited}). What an adapter asks of it
 * before starting is here; what it builds from it is in its snapshot ({@link PathPolicies}, {@link MethodLimits}).
 * Immutable and thread-safe.
 */
public final class AdapterConfig {

    private final SluiceConfig config;
    /** Null when the configuration was given whole. */
    private final ConfigSource source;

    private AdapterConfig(SluiceConfig config, ConfigSource source) {
        this.config = config;
        this.source = source;
    }

    /**
     * Reads and validates {@code source}.
     *
     * @throws SluiceConfigException naming key, value and accepted form when a value is bad
     */
    public static AdapterConfig load(ConfigSource source) {
        return new AdapterConfig(SluiceConfigLoader.load(source), source);
    }

    /** A configuration given whole, with no layering behind it. */
    public static AdapterConfig of(SluiceConfig config) {
        return new AdapterConfig(config, null);
    }

    /** {@code sluice.filter.enabled}. */
    public boolean filterEnabled() {
        return config.filterEnabled();
    }

    /** Whether {@code sluice.config.refresh} is set, so that a reload may give policies to an adapter that has none. */
    public boolean refreshes() {
        return !config.configRefresh().isZero();
    }

    /** The validated configuration. */
    public SluiceConfig config() {
        return config;
    }

    /** The policies of {@code @RateLimited} annotations, over this reading's layering (configuration wins). */
    public AnnotatedPolicies annotatedPolicies() {
        if (source == null) {
            throw new IllegalStateException("a configuration given whole has no layering for inline policies");
        }
        return new AnnotatedPolicies(source);
    }
}
