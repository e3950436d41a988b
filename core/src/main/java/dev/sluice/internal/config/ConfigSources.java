package dev.sluice.internal.config;

import dev.sluice.SluiceConfigException;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/**
 * Where Sluice's raw settings come from, as the contract orders them.
 *
 * <p>{@link #detect} returns MicroProfile Config when the application has it. Otherwise it returns the
 * fallback chain, first match wins: servlet context-params, system properties, environment variables
 * (see {@link EnvironmentConfigSource} for the name mapping), then every
 * {@code META-INF/microprofile-config.properties} on the class loader (higher {@code config_ordinal}
 * first, as in MicroProfile Config; equal ordinals in class-path order). A filter layers its own
 * init-params on top with {@link #layered}.
 *
 * <p>Every source returned here is thread-safe; the fallback sources take a snapshot when created.
 * Blank values count as absent, so a blank entry never hides a value further down.
 */
public final class ConfigSources {

    /** Every Sluice key starts with this. */
    public static final String PREFIX = "sluice.";

    static final String PROPERTIES_FILE = "META-INF/microprofile-config.properties";

    private static final String MP_CONFIG_PROVIDER = "org.eclipse.microprofile.config.ConfigProvider";
    private static final System.Logger LOG = System.getLogger(ConfigSources.class.getName());

    private ConfigSources() {
    }

    /**
     * The application's settings: MicroProfile Config when {@code ConfigProvider} is loadable from
     * {@code cl} and answers for it, else {@link #fallback}.
     *
     * @param cl            the application's class loader (usually the thread context class loader)
     * @param contextParams servlet context-params, or {@code null} outside a web application: first in the
     *                      fallback chain, and below every MicroProfile Config source when that is used (so that
     *                      settings in {@code web.xml} are never silently ignored)
     */
    public static ConfigSource detect(ClassLoader cl, ConfigSource contextParams) {
        ClassLoader loader = cl != null ? cl : ConfigSources.class.getClassLoader();
        if (isLoadable(MP_CONFIG_PROVIDER, loader)) {
            try {
                ConfigSource mp = MicroProfileConfigSource.forClassLoader(loader);
                return contextParams == null || contextParams.names().isEmpty() ? mp
                        : new Named(layered(mp, contextParams), "MicroProfile Config, then context-params");
            } catch (RuntimeException | LinkageError e) {
                // The API jar without an implementation (IllegalStateException), or an API this class
                // cannot link to: the fallback chain is the documented answer for both.
                LOG.log(System.Logger.Level.DEBUG, "MicroProfile Config API present but unusable, using the"
                        + " fallback chain: " + e);
            }
        }
        return fallback(loader, contextParams, systemProperties(), System.getenv());
    }

    /**
     * The fallback chain with the given system properties and environment, so tests need not change the
     * real ones.
     *
     * @param contextParams servlet context-params, or {@code null}
     */
    public static ConfigSource fallback(ClassLoader cl, ConfigSource contextParams,
            Map<String, String> systemProperties, Map<String, String> environment) {
        ConfigSource chain = layered(of(systemProperties),
                layered(new EnvironmentConfigSource(environment), classpathProperties(cl)));
        ConfigSource result = contextParams == null ? chain : layered(contextParams, chain);
        return new Named(result, "fallback chain (" + (contextParams == null ? "" : "context-params, ")
                + "system properties, environment variables, " + PROPERTIES_FILE + ")");
    }

    /** {@code top}'s value where it has one, else {@code base}'s; names are the union. */
    public static ConfigSource layered(ConfigSource top, ConfigSource base) {
        return new Layered(top, base);
    }

    /** A fixed map, copied; keys not starting with {@code sluice.} are kept for lookup but not named. */
    public static ConfigSource of(Map<String, String> values) {
        return new MapSource(values);
    }

    /** No settings at all. */
    public static ConfigSource empty() {
        return of(Map.of());
    }

    /**
     * Every {@code META-INF/microprofile-config.properties} visible to {@code cl}, read now. A file with a
     * higher {@code config_ordinal} (default 100) wins; among equal ordinals the first on the class path.
     *
     * @throws SluiceConfigException when a file cannot be read or its {@code config_ordinal} is not a number
     */
    public static ConfigSource classpathProperties(ClassLoader cl) {
        List<Map.Entry<Integer, Properties>> files = new ArrayList<>();
        try {
            for (URL url : Collections.list(cl.getResources(PROPERTIES_FILE))) {
                Properties p = new Properties();
                try (InputStream in = url.openStream(); Reader r = new InputStreamReader(in, StandardCharsets.UTF_8)) {
                    p.load(r);
                }
                files.add(Map.entry(ordinal(url, p), p));
            }
        } catch (IOException e) {
            throw ConfigProblems.withoutValue(PROPERTIES_FILE, "could not be read (" + e.getMessage() + ")",
                    "a readable properties file");
        }
        files.sort(Comparator.comparing((Map.Entry<Integer, Properties> f) -> f.getKey()).reversed());
        Map<String, String> merged = new LinkedHashMap<>();
        for (Map.Entry<Integer, Properties> f : files) {
            for (String name : f.getValue().stringPropertyNames()) {
                merged.putIfAbsent(name, f.getValue().getProperty(name));
            }
        }
        return new Named(of(merged), PROPERTIES_FILE);
    }

    private static int ordinal(URL url, Properties p) {
        String text = p.getProperty("config_ordinal", "100").trim();
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw ConfigProblems.invalidIn("config_ordinal", url.toString(), text, "is not a number",
                    "a whole number such as 100");
        }
    }

    private static Map<String, String> systemProperties() {
        Properties props = System.getProperties();
        Map<String, String> out = new LinkedHashMap<>();
        for (String name : props.stringPropertyNames()) {
            out.put(name, props.getProperty(name));
        }
        return out;
    }

    private static boolean isLoadable(String className, ClassLoader cl) {
        try {
            Class.forName(className, false, cl);
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** Trimmed value, or empty when absent or blank. */
    static Optional<String> clean(String value) {
        if (value == null) {
            return Optional.empty();
        }
        String trimmed = value.trim();
        return trimmed.isEmpty() ? Optional.empty() : Optional.of(trimmed);
    }

    private static final class MapSource implements ConfigSource {
        private final Map<String, String> values;

        MapSource(Map<String, String> values) {
            this.values = Map.copyOf(values);
        }

        @Override
        public Optional<String> get(String key) {
            return clean(values.get(key));
        }

        @Override
        public Set<String> names() {
            Set<String> names = new TreeSet<>();
            for (String name : values.keySet()) {
                if (name.startsWith(PREFIX)) {
                    names.add(name);
                }
            }
            return names;
        }

        @Override
        public String toString() {
            return "map of " + values.size() + " entries";
        }
    }

    private record Layered(ConfigSource top, ConfigSource base) implements ConfigSource {
        @Override
        public Optional<String> get(String key) {
            Optional<String> v = top.get(key);
            return v.isPresent() ? v : base.get(key);
        }

        @Override
        public Set<String> names() {
            Set<String> names = new TreeSet<>(top.names());
            names.addAll(base.names());
            return names;
        }

        @Override
        public String toString() {
            return top + " over " + base;
        }
    }

    /** Gives a composed source a readable description for logs; never shows values. */
    private record Named(ConfigSource delegate, String description) implements ConfigSource {
        @Override
        public Optional<String> get(String key) {
            return delegate.get(key);
        }

        @Override
        public Set<String> names() {
            return delegate.names();
        }

        @Override
        public String toString() {
            return description;
        }
    }
}
