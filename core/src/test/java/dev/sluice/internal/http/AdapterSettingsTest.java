package dev.sluice.internal.http;

import dev.sluice.SluiceConfigException;
import dev.sluice.internal.config.HeaderMode;
import org.junit.jupiter.api.Test;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Where each adapter reads its settings: what wins, what is read at all, and what a bad value does. */
class AdapterSettingsTest {

    /** No META-INF/microprofile-config.properties and no MicroProfile Config: context-params, properties, env. */
    private final ClassLoader application = new URLClassLoader(new URL[0], null);

    @Test
    void aFiltersInitParamsWinOverItsContextParams() {
        AdapterSettings settings = AdapterSettings.servlet(application,
                Map.of("sluice.limit.api.rate", "1/1s"),
                Map.of("sluice.limit.api.rate", "9/1s", "sluice.limit.api.paths", "/api/*"));

        AdapterConfig config = settings.read();

        assertThat(config.config().policies().get("api").bandwidths().get(0).tokens()).isEqualTo(1);
        assertThat(config.config().policies().get("api").paths()).containsExactly("/api/*");
        assertThat(settings.loader()).isSameAs(application);
    }

    @Test
    void aJaxrsApplicationGivesOnlyItsSluicePropertiesAndEachReadingSeesTheirValuesThen() {
        Map<String, Object> properties = new HashMap<>(Map.of(
                "sluice.limit.api.rate", "3/1s", "jersey.config.server.tracing", "ALL"));
        AdapterSettings settings = AdapterSettings.application(application, properties);

        AdapterConfig config = settings.read();

        assertThat(config.config().policies()).containsOnlyKeys("api");
        assertThat(config.refreshes()).isFalse();
        assertThat(config.filterEnabled()).isTrue();
        assertThat(AdapterSettings.application(application, Map.of("sluice.filter.enabled", "false",
                "sluice.config.refresh", "10s")).read()).satisfies(c -> {
                    assertThat(c.filterEnabled()).isFalse();
                    assertThat(c.refreshes()).isTrue();
                });
    }

    @Test
    void aBadValueFailsTheReadingNamingTheKey() {
        AdapterSettings settings = AdapterSettings.servlet(application, Map.of("sluice.config.refresh", "soon"), Map.of());

        assertThatThrownBy(settings::read).isInstanceOf(SluiceConfigException.class)
                .satisfies(e -> assertThat(((SluiceConfigException) e).key()).isEqualTo("sluice.config.refresh"));
    }

    @Test
    void exceptionsAreAnsweredInTheApplicationsHeaderModeAndInTheDefaultWhileItIsBad() {
        AdapterSettings legacy = AdapterSettings.application(application, Map.of("sluice.headers", "legacy"));
        AdapterSettings bad = AdapterSettings.application(application, Map.of("sluice.headers", "loud"));
        AdapterSettings badElsewhere = AdapterSettings.application(application,
                Map.of("sluice.headers", "none", "sluice.limit.api.rate", "ten/s"));

        assertThat(legacy.exceptionResponses().mode()).isEqualTo(HeaderMode.LEGACY);
        assertThat(bad.exceptionResponses().mode()).isEqualTo(HeaderMode.IETF);
        assertThat(badElsewhere.exceptionResponses().mode()).as("read without the rest").isEqualTo(HeaderMode.NONE);
    }

    @Test
    void aLoaderGivesWholeConfigurationsWithoutLayeringForInlinePolicies() {
        AdapterSettings settings = AdapterSettings.loaded(application, loader -> AdapterSettings.servlet(loader,
                Map.of("sluice.headers", "none"), Map.of()).read().config());

        AdapterConfig config = settings.read();

        assertThat(settings.exceptionResponses().mode()).isEqualTo(HeaderMode.NONE);
        assertThatThrownBy(config::annotatedPolicies).isInstanceOf(IllegalStateException.class);
    }
}
