package dev.sluice.internal.config;

import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class ConfigSourcesTest {

    private static final ClassLoader NO_FILES = new ClassLoader(null) {
    };

    @TempDir
    Path tmp;

    private static ConfigSource env(Map<String, String> vars) {
        return ConfigSources.fallback(NO_FILES, null, Map.of(), vars);
    }

    @Test
    void findsEnvironmentVariableByMicroProfileMapping() {
        assertThat(env(Map.of("SLUICE_LIMIT_API_RATE", "5/1s")).get("sluice.limit.api.rate")).contains("5/1s");
        assertThat(env(Map.of("SLUICE_REDIS_POOL_MAX_TOTAL", "8")).get("sluice.redis.pool.max-total")).contains("8");
        assertThat(env(Map.of("sluice_limit_my_api_cost", "2")).get("sluice.limit.my-api.cost")).contains("2");
    }

    @Test
    void prefersExactEnvironmentNameThenSanitizedThenUpperCase() {
        ConfigSource all = env(Map.of("sluice.headers", "exact", "sluice_headers", "sanitized", "SLUICE_HEADERS", "upper"));
        assertThat(all.get("sluice.headers")).contains("exact");
        ConfigSource two = env(Map.of("sluice_headers", "sanitized", "SLUICE_HEADERS", "upper"));
        assertThat(two.get("sluice.headers")).contains("sanitized");
    }

    @Test
    void listsOnlyEnvironmentVariablesNamedLikeKeys() {
        ConfigSource source = env(Map.of("SLUICE_LIMIT_API_RATE", "5/1s", "sluice.limit.web.rate", "1/s", "PATH", "/bin"));
        assertThat(source.names()).containsExactly("sluice.limit.web.rate");
    }

    @Test
    void environmentVariableOverridesAPolicyThatAnotherSourceNames() {
        ConfigSource source = ConfigSources.fallback(NO_FILES, null,
                Map.of("sluice.limit.api.rate", "100/1m"),
                Map.of("SLUICE_LIMIT_API_BURST", "150", "SLUICE_LIMIT_ORPHAN_RATE", "1/s"));
        SluiceConfig config = SluiceConfigLoader.load(source);
        assertThat(config.policies()).containsOnlyKeys("api");
        assertThat(config.policy("api").orElseThrow().bandwidths().get(0).capacity()).isEqualTo(150);
    }

    @Test
    void fallbackChainTakesContextParamsThenSystemPropertiesThenEnvironmentThenFiles() throws IOException {
        writeProperties(tmp, "sluice.a=file\nsluice.b=file\nsluice.c=file\nsluice.d=file\n");
        try (URLClassLoader cl = new URLClassLoader(new URL[] {tmp.toUri().toURL()}, null)) {
            ConfigSource source = ConfigSources.fallback(cl,
                    ConfigSources.of(Map.of("sluice.a", "context")),
                    Map.of("sluice.a", "sysprop", "sluice.b", "sysprop"),
                    Map.of("SLUICE_A", "env", "SLUICE_B", "env", "SLUICE_C", "env"));
            assertThat(source.get("sluice.a")).contains("context");
            assertThat(source.get("sluice.b")).contains("sysprop");
            assertThat(source.get("sluice.c")).contains("env");
            assertThat(source.get("sluice.d")).contains("file");
            assertThat(source.names()).containsExactly("sluice.a", "sluice.b", "sluice.c", "sluice.d");
        }
    }

    @Test
    void propertiesFileWithHigherOrdinalWins() throws IOException {
        Path low = Files.createDirectories(tmp.resolve("low"));
        Path high = Files.createDirectories(tmp.resolve("high"));
        writeProperties(low, "sluice.headers=legacy\nsluice.key-prefix=low\n");
        writeProperties(high, "config_ordinal=200\nsluice.headers=both\n");
        try (URLClassLoader cl = new URLClassLoader(new URL[] {low.toUri().toURL(), high.toUri().toURL()}, null)) {
            ConfigSource source = ConfigSources.classpathProperties(cl);
            assertThat(source.get("sluice.headers")).contains("both");
            assertThat(source.get("sluice.key-prefix")).contains("low");
        }
    }

    @Test
    void layeredTakesTopValueAndFallsThroughBlankOnes() {
        ConfigSource layered = ConfigSources.layered(
                ConfigSources.of(Map.of("sluice.headers", "none", "sluice.key-prefix", "  ")),
                ConfigSources.of(Map.of("sluice.headers", "both", "sluice.key-prefix", "app", "sluice.filter.enabled", "false")));
        assertThat(layered.get("sluice.headers")).contains("none");
        assertThat(layered.get("sluice.key-prefix")).contains("app");
        assertThat(layered.get("sluice.filter.enabled")).contains("false");
        assertThat(layered.names()).containsExactly("sluice.filter.enabled", "sluice.headers", "sluice.key-prefix");
    }

    @Test
    void trimsValuesAndTreatsBlankAsAbsent() {
        ConfigSource source = ConfigSources.of(Map.of("sluice.headers", " both ", "sluice.key-prefix", ""));
        assertThat(source.get("sluice.headers")).contains("both");
        assertThat(source.get("sluice.key-prefix")).isEmpty();
        assertThat(ConfigSources.empty().names()).isEmpty();
    }

    @Test
    void usesMicroProfileConfigWhenTheApplicationHasIt() throws IOException {
        // Only MicroProfile Config expands expressions, so the expanded value proves which source answered.
        writeProperties(tmp, "sluice.limit.mp.rate=${mp.test.rate}\nmp.test.rate=7/1s\nnot.sluice=x\n");
        try (URLClassLoader cl = new URLClassLoader(new URL[] {tmp.toUri().toURL()}, getClass().getClassLoader())) {
            ConfigSource source = ConfigSources.detect(cl, ConfigSources.of(Map.of("sluice.limit.mp.rate", "1/s")));
            try {
                assertThat(source.toString()).isEqualTo("MicroProfile Config, then context-params");
                assertThat(source.get("sluice.limit.mp.rate")).contains("7/1s");
                assertThat(source.names()).contains("sluice.limit.mp.rate").doesNotContain("not.sluice");
                assertThat(SluiceConfigLoader.load(source).policy("mp").orElseThrow().bandwidths().get(0).tokens())
                        .isEqualTo(7);
            } finally {
                ConfigProviderResolver.instance().releaseConfig(ConfigProvider.getConfig(cl));
            }
        }
    }

    @Test
    void readsContextParamsBelowMicroProfileConfigRatherThanIgnoringThem() throws IOException {
        writeProperties(tmp, "sluice.limit.mp.rate=7/1s\n");
        try (URLClassLoader cl = new URLClassLoader(new URL[] {tmp.toUri().toURL()}, getClass().getClassLoader())) {
            ConfigSource source = ConfigSources.detect(cl, ConfigSources.of(Map.of(
                    "sluice.limit.mp.rate", "1/1s", "sluice.limit.web.rate", "2/1s")));
            try {
                SluiceConfig config = SluiceConfigLoader.load(source);
                assertThat(config.policy("mp").orElseThrow().bandwidths().get(0).tokens())
                        .as("MicroProfile Config wins").isEqualTo(7);
                assertThat(config.policy("web").orElseThrow().bandwidths().get(0).tokens())
                        .as("a key only web.xml sets").isEqualTo(2);
            } finally {
                ConfigProviderResolver.instance().releaseConfig(ConfigProvider.getConfig(cl));
            }
        }
    }

    @Test
    void doesNotTakeMicroProfileGuessesFromEnvironmentVariablesForPolicyNames() throws IOException {
        // SmallRye lists SLUICE_LIMIT_MY_API_BURST also as sluice.limit.my.api.burst: policy "my.api" would
        // be invalid, and sluice.redis.pool.max.total an unknown key.
        writeProperties(tmp, "sluice.limit.my-api.rate=10/1s\n");
        Path services = tmp.resolve("META-INF/services/org.eclipse.microprofile.config.spi.ConfigSource");
        Files.createDirectories(services.getParent());
        Files.writeString(services, FixedEnvironmentSource.class.getName() + "\n");
        try (URLClassLoader cl = new URLClassLoader(new URL[] {tmp.toUri().toURL()}, getClass().getClassLoader())) {
            ConfigSource source = ConfigSources.detect(cl, null);
            try {
                assertThat(source.names()).contains("sluice.limit.my-api.rate")
                        .doesNotContain("sluice.limit.my.api.burst", "sluice.redis.pool.max.total");
                SluiceConfig config = SluiceConfigLoader.load(source);
                assertThat(config.policies()).containsOnlyKeys("my-api");
                assertThat(config.policy("my-api").orElseThrow().bandwidths().get(0).capacity()).isEqualTo(9);
                assertThat(config.redis().pool().maxTotal()).isEqualTo(8);
            } finally {
                ConfigProviderResolver.instance().releaseConfig(ConfigProvider.getConfig(cl));
            }
        }
    }

    @Test
    void fallsBackWhenMicroProfileConfigIsAbsent() throws Exception {
        writeProperties(tmp, "sluice.limit.plain.rate=${not.expanded}\nsluice.limit.ok.rate=3/1s\n");
        try (HidingClassLoader cl = new HidingClassLoader(tmp, HidingClassLoader.Mode.NO_MICROPROFILE)) {
            assertFallbackWorksInside(cl);
        }
    }

    @Test
    void fallsBackWhenOnlyTheMicroProfileApiIsPresent() throws Exception {
        writeProperties(tmp, "sluice.limit.plain.rate=${not.expanded}\nsluice.limit.ok.rate=3/1s\n");
        try (HidingClassLoader cl = new HidingClassLoader(tmp, HidingClassLoader.Mode.API_WITHOUT_IMPLEMENTATION)) {
            assertThat(cl.loadClass("org.eclipse.microprofile.config.ConfigProvider").getClassLoader()).isSameAs(cl);
            assertFallbackWorksInside(cl);
        }
    }

    /** Runs detection and a full load with Sluice's classes as {@code cl} defines them, by reflection. */
    private static void assertFallbackWorksInside(ClassLoader cl) throws Exception {
        Class<?> sources = cl.loadClass(ConfigSources.class.getName());
        Class<?> sourceType = cl.loadClass(ConfigSource.class.getName());
        assertThat(sources.getClassLoader()).isSameAs(cl);
        Object source = sources.getMethod("detect", ClassLoader.class, sourceType).invoke(null, cl, null);
        assertThat(source.toString()).startsWith("fallback chain");
        Method get = sourceType.getMethod("get", String.class);
        assertThat(get.invoke(source, "sluice.limit.plain.rate")).isEqualTo(Optional.of("${not.expanded}"));

        Object okOnly = sources.getMethod("of", Map.class).invoke(null, Map.of("sluice.limit.ok.rate", "3/1s"));
        Object config = cl.loadClass(SluiceConfigLoader.class.getName()).getMethod("load", sourceType).invoke(null, okOnly);
        assertThat(config.getClass().getMethod("policies").invoke(config)).asString().contains("ok");
    }

    private static void writeProperties(Path dir, String content) throws IOException {
        Path file = dir.resolve(ConfigSources.PROPERTIES_FILE);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
    }
}
