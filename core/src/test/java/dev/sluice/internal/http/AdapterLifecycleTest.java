package dev.sluice.internal.http;

import dev.sluice.SluiceConfigException;
import dev.sluice.internal.config.ConfigSource;
import dev.sluice.internal.metrics.Kind;
import dev.sluice.internal.metrics.SluiceMetrics;
import dev.sluice.internal.runtime.SluiceRuntime;
import dev.sluice.test.LogCapture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One adapter's life over the in-process store: the runtime shared by every adapter of an application and closed
 * with its last user, the first snapshot, reloads that swap a changed snapshot and keep the old one on a bad value,
 * and everything let go on close.
 */
class AdapterLifecycleTest {

    @RegisterExtension
    LogCapture logs = new LogCapture();

    /** An application of its own per test, so that no other test's runtime is shared. */
    private final ClassLoader application = new URLClassLoader(new URL[0], getClass().getClassLoader());
    private final Map<String, String> values = new ConcurrentHashMap<>(Map.of(
            "sluice.limit.api.rate", "10/1m",
            "sluice.limit.api.paths", "/api/*"));
    private final AdapterSettings settings = AdapterSettings.over(application, () -> new ConfigSource() {
        @Override
        public Optional<String> get(String key) {
            return Optional.ofNullable(values.get(key));
        }

        @Override
        public Set<String> names() {
            return new TreeSet<>(values.keySet());
        }
    });
    private final List<AdapterLifecycle<?>> started = new ArrayList<>();

    @AfterEach
    void closeAll() {
        started.forEach(AdapterLifecycle::close);
    }

    private AdapterLifecycle<PathPolicies> started(String name) {
        AdapterLifecycle<PathPolicies> lifecycle = new AdapterLifecycle<>();
        started.add(lifecycle);
        lifecycle.start(settings, settings.read(), name, (config, before) -> PathPolicies.of(config));
        return lifecycle;
    }

    private static long tokens(AdapterLifecycle<PathPolicies> lifecycle) {
        return lifecycle.current().snapshot().matcher().matching("GET", "/api/x").get(0).config().bandwidths().get(0).tokens();
    }

    @Test
    void nothingIsCurrentBeforeStartOrAfterClose() {
        AdapterLifecycle<PathPolicies> lifecycle = new AdapterLifecycle<>();
        assertThat(lifecycle.current()).isNull();

        started.add(lifecycle);
        lifecycle.start(settings, settings.read(), "filter", (config, before) -> PathPolicies.of(config));
        assertThat(lifecycle.current().snapshot().names()).containsExactly("api");

        lifecycle.close();
        assertThat(lifecycle.current()).isNull();
    }

    @Test
    void adaptersOfOneApplicationShareOneRuntimeClosedWithItsLastUser() {
        AdapterLifecycle<PathPolicies> filter = started("filter");
        AdapterLifecycle<PathPolicies> jaxrs = started("jaxrs");
        SluiceRuntime runtime = filter.current().runtime();
        assertThat(jaxrs.current().runtime()).isSameAs(runtime);

        filter.close();
        assertThat(runtime.isClosed()).as("one user left").isFalse();

        jaxrs.close();
        assertThat(runtime.isClosed()).isTrue();
    }

    @Test
    void aReloadThatChangesAPolicySwapsTheSnapshot() {
        AdapterLifecycle<PathPolicies> lifecycle = started("filter");
        values.put("sluice.limit.api.rate", "20/1m");

        String summary = lifecycle.current().runtime().reloads().reload();

        assertThat(tokens(lifecycle)).isEqualTo(20);
        assertThat(summary).isEqualTo("filter: api: rate 10/1m -> 20/1m");
    }

    @Test
    void aReloadThatChangesNothingKeepsTheSnapshotItself() {
        AdapterLifecycle<PathPolicies> lifecycle = started("filter");
        PathPolicies before = lifecycle.current().snapshot();
        values.put("sluice.limit.other.rate", "1/1s");

        String summary = lifecycle.current().runtime().reloads().reload();

        assertThat(summary).isEqualTo("unchanged");
        assertThat(lifecycle.current().snapshot()).isSameAs(before);
    }

    @Test
    void aBadReloadKeepsTheOldSnapshotAndIsLoggedNamingTheKey() {
        AdapterLifecycle<PathPolicies> lifecycle = started("filter");
        AdapterLifecycle.Current<PathPolicies> before = lifecycle.current();
        values.put("sluice.limit.api.rate", "ten/s");

        String summary = before.runtime().reloads().reload();

        assertThat(lifecycle.current()).isSameAs(before);
        assertThat(summary).startsWith("filter: refused, sluice.limit.api.rate: \"ten/s\"");
        assertThat(logs.records(Level.SEVERE, "dev.sluice")).singleElement()
                .satisfies(r -> assertThat(logs.text(r)).contains("reload refused for filter").contains("\"ten/s\""));
    }

    @Test
    void aSnapshotThatCannotBeBuiltFailsTheStartAndKeepsNoShareOfTheRuntime() {
        AdapterLifecycle<PathPolicies> first = started("filter");
        SluiceRuntime runtime = first.current().runtime();
        AdapterLifecycle<PathPolicies> broken = new AdapterLifecycle<>();
        started.add(broken);

        assertThatThrownBy(() -> broken.start(settings, settings.read(), "jaxrs", (config, before) -> {
            throw new SluiceConfigException("sluice.limit.api.key", "bad key");
        })).isInstanceOf(SluiceConfigException.class);
        assertThat(broken.current()).isNull();

        first.close();
        assertThat(runtime.isClosed()).as("the failed start released what it acquired").isTrue();
    }

    @Test
    void aClosedAdapterIsNoLongerReloaded() {
        AdapterLifecycle<PathPolicies> staying = started("filter");
        AdapterLifecycle<PathPolicies> leaving = started("jaxrs");
        leaving.close();
        values.put("sluice.limit.api.rate", "20/1m");

        String summary = staying.current().runtime().reloads().reload();

        assertThat(summary).isEqualTo("filter: api: rate 10/1m -> 20/1m");
        assertThat(leaving.current()).isNull();
    }

    @Test
    void anUpdateReplacesTheSnapshotAndAReloadBuildsOnTheOneInForce() {
        AdapterLifecycle<PathPolicies> lifecycle = new AdapterLifecycle<>();
        started.add(lifecycle);
        List<PathPolicies> befores = new ArrayList<>();
        lifecycle.start(settings, settings.read(), "filter", (config, before) -> {
            befores.add(before);
            return PathPolicies.of(config);
        });
        values.put("sluice.limit.api.rate", "30/1m");
        PathPolicies updated = lifecycle.update(s -> PathPolicies.of(settings.read()));

        assertThat(lifecycle.current().snapshot()).isSameAs(updated);
        assertThat(tokens(lifecycle)).isEqualTo(30);
        values.put("sluice.limit.api.rate", "40/1m");
        lifecycle.current().runtime().reloads().reload();
        assertThat(befores).containsExactly(null, updated);
    }

    @Test
    void overAGivenRuntimeNothingIsReleasedOrReloaded() {
        SluiceRuntime given = SluiceRuntime.start(settings.read().config());
        try {
            AdapterLifecycle<PathPolicies> lifecycle = new AdapterLifecycle<>();
            lifecycle.startOver(given, settings.read(), (config, before) -> PathPolicies.of(config));
            assertThat(lifecycle.current().runtime()).isSameAs(given);
            assertThat(lifecycle.current().snapshot().names()).containsExactly("api");
            assertThatThrownBy(() -> lifecycle.startOver(given, settings.read(), (config, before) -> PathPolicies.of(config)))
                    .isInstanceOf(IllegalStateException.class);
            values.put("sluice.limit.api.rate", "20/1m");

            assertThat(given.reloads().reload()).isEqualTo("unchanged");
            lifecycle.close();
            assertThat(given.isClosed()).isFalse();
        } finally {
            given.close();
        }
    }

    @Test
    void startingTwiceIsRefused() {
        AdapterLifecycle<PathPolicies> lifecycle = started("filter");

        assertThatThrownBy(() -> lifecycle.start(settings, settings.read(), "again", (config, before) -> PathPolicies.of(config)))
                .isInstanceOf(IllegalStateException.class);
        assertThat(lifecycle.current()).isNotNull();
    }

    @Test
    void everyPolicyOfASnapshotAndOfAReloadedConfigurationIsAMetricName() {
        AdapterLifecycle<MethodLimits> lifecycle = new AdapterLifecycle<>();
        started.add(lifecycle);
        List<AnnotatedPolicies.Declared> first = List.of(new AnnotatedPolicies.Declared("inline", "1/1s", 0, "", 0));
        List<AnnotatedPolicies.Declared> second = List.of(new AnnotatedPolicies.Declared("later", "1/1s", 0, "", 0));
        AdapterConfig config = settings.read();
        lifecycle.start(settings, config, "jaxrs", (c, before) -> before == null
                ? MethodLimits.NONE.with("A#a()", first, List.of(), c.annotatedPolicies().resolve("A#a()", first, List.of()))
                : before.resolvedAgain(c));
        SluiceMetrics metrics = lifecycle.current().runtime().metrics();
        assertThat(metrics.isRegistered(Kind.RATE_LIMIT, "inline")).as("at start").isTrue();

        lifecycle.update(s -> s.with("B#b()", second, List.of(), config.annotatedPolicies().resolve("B#b()", second, List.of())));
        assertThat(metrics.isRegistered(Kind.RATE_LIMIT, "later")).as("on update").isTrue();

        values.put("sluice.limit.inline.rate", "2/1s");
        values.put("sluice.limit.limiterOnly.rate", "3/1s");
        lifecycle.current().runtime().reloads().reload();
        assertThat(lifecycle.current().snapshot().policies(0).get(0).config().bandwidths().get(0).tokens()).isEqualTo(2);
        assertThat(metrics.isRegistered(Kind.RATE_LIMIT, "limiterOnly")).as("a policy the reload added").isTrue();
    }
}
