package dev.sluice.internal.runtime;

import dev.sluice.internal.config.ConfigSource;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.limit.InProcessRateLimitStore;
import dev.sluice.test.LogCapture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What a reload does with new values: applies changed policies and clears the deny cache, refuses a bad value
 * whole (old policies stay, an ERROR names key, value and form, the refusal is counted), warns once about keys
 * that need a redeploy, runs every {@code sluice.config.refresh} on a daemon thread that stops with the runtime,
 * and is reachable as the JMX operation {@code reload()}.
 */
class ConfigReloadsTest {

    @RegisterExtension
    LogCapture logs = new LogCapture();

    private final Map<String, String> values = new ConcurrentHashMap<>(Map.of(
            "sluice.limit.api.rate", "10/1m",
            "sluice.limit.api.paths", "/api/*"));
    private final ConfigSource source = new ConfigSource() {
        @Override
        public Optional<String> get(String key) {
            return Optional.ofNullable(values.get(key)).map(String::trim).filter(v -> !v.isEmpty());
        }

        @Override
        public Set<String> names() {
            return new TreeSet<>(values.keySet());
        }
    };
    private SluiceRuntime runtime;

    /** The smallest adapter: it applies every policy of the configuration, as the servlet filter does. */
    private final class Adapter implements Reloadable {
        final SluiceConfig deployed = SluiceConfigLoader.load(source);
        volatile Map<String, PolicyConfig> policies = deployed.policies();

        @Override
        public String describe() {
            return "test adapter";
        }

        @Override
        public ConfigReloads.Outcome reload() {
            SluiceConfig reread = SluiceConfigLoader.load(source);
            var changes = ConfigReloads.changes(policies, reread.policies());
            policies = reread.policies();
            return new ConfigReloads.Outcome(changes, ConfigReloads.notApplied(deployed, reread));
        }

        long rateTokens() {
            return policies.get("api").bandwidths().get(0).tokens();
        }
    }

    @AfterEach
    void close() {
        if (runtime != null) {
            runtime.close();
        }
    }

    private Adapter start(String refresh) {
        values.put("sluice.config.refresh", refresh);
        Adapter adapter = new Adapter();
        runtime = SluiceRuntime.of(adapter.deployed, new InProcessRateLimitStore());
        runtime.reloads().register(adapter, getClass().getClassLoader(), adapter.deployed.configRefresh());
        return adapter;
    }

    private void refuseOnce(String client) {
        PolicyConfig api = runtime.config().policy("api").orElseThrow();
        for (int i = 0; i <= 10; i++) {
            runtime.rateLimits().decide(api, client, 1);
        }
    }

    @Test
    void aChangedRateIsAppliedAndClearsTheDenyCache() {
        Adapter adapter = start("0");
        refuseOnce("203.0.113.9");
        assertThat(runtime.rateLimits().denials().size()).isEqualTo(1);

        values.put("sluice.limit.api.rate", "2/1m");
        String summary = runtime.reloads().reload();

        assertThat(adapter.rateTokens()).isEqualTo(2);
        assertThat(summary).isEqualTo("test adapter: api: rate 10/1m -> 2/1m");
        assertThat(runtime.rateLimits().denials().size()).as("refusals decided under the old limits").isZero();
        assertThat(runtime.metrics().reloads().appliedCount()).isEqualTo(1);
        assertThat(logs.records(Level.INFO, "dev.sluice")).anySatisfy(r ->
                assertThat(logs.text(r)).contains("policies reloaded", "api: rate 10/1m -> 2/1m"));
    }

    @Test
    void theSummaryNamesEveryAttributeThatChangedAndEveryPolicyAddedOrRemoved() {
        start("0");
        values.put("sluice.limit.api.cost", "2");
        values.put("sluice.limit.api.methods", "post");
        values.put("sluice.limit.api.on-redis-failure", "deny");
        values.put("sluice.limit.login.rate", "5/1m");

        String summary = runtime.reloads().reload();
        values.keySet().removeIf(k -> k.startsWith("sluice.limit.login."));
        String second = runtime.reloads().reload();

        assertThat(summary).isEqualTo("test adapter: api: methods [] -> [POST], cost 1 -> 2, on-redis-failure allow -> deny,"
                + " login: added login(5/1m, key=ip)");
        assertThat(second).isEqualTo("test adapter: login: removed");
    }

    @Test
    void anUnchangedConfigurationChangesNothing() {
        start("0");
        refuseOnce("203.0.113.9");

        assertThat(runtime.reloads().reload()).isEqualTo("unchanged");
        assertThat(runtime.rateLimits().denials().size()).isEqualTo(1);
        assertThat(runtime.metrics().reloads().appliedCount()).isZero();
    }

    @Test
    void aBadValueIsRefusedWholeAndTheOldPoliciesStay() {
        Adapter adapter = start("0");
        refuseOnce("203.0.113.9");
        values.put("sluice.limit.api.burst", "20");
        values.put("sluice.limit.api.rate", "ten/s");

        String summary = runtime.reloads().reload();
        runtime.reloads().reload();

        assertThat(summary).contains("refused", "sluice.limit.api.rate", "ten/s");
        assertThat(adapter.policies.get("api").bandwidths().get(0).capacity())
                .as("the good burst next to the bad rate is not applied either").isEqualTo(10);
        assertThat(runtime.rateLimits().denials().size()).isEqualTo(1);
        assertThat(runtime.metrics().reloads().refusedCount()).isEqualTo(2);
        assertThat(logs.records(Level.SEVERE, "dev.sluice")).as("one ERROR while the value stays bad").singleElement()
                .satisfies(r -> assertThat(logs.text(r)).contains("refused", "sluice.limit.api.rate", "\"ten/s\"",
                        "100/1m", "stay as they were"));

        values.put("sluice.limit.api.rate", "5/1m");
        runtime.reloads().reload();
        assertThat(adapter.policies.get("api").bandwidths().get(0).capacity()).isEqualTo(20);
    }

    @Test
    void settingsReadOnlyAtDeploymentAreWarnedAboutOnce() {
        Adapter adapter = start("0");
        values.put("sluice.key-prefix", "other");
        values.put("sluice.redis.uri", "redis://127.0.0.1:1");

        runtime.reloads().reload();
        runtime.reloads().reload();

        assertThat(logs.records(Level.WARNING, "dev.sluice")).singleElement().satisfies(r ->
                assertThat(logs.text(r)).contains("sluice.redis.*", "sluice.key-prefix", "redeployed", "not applied"));
        assertThat(adapter.rateTokens()).isEqualTo(10);
        assertThat(runtime.metrics().reloads().appliedCount()).isZero();
    }

    @Test
    void aRefreshPeriodReloadsOnItsOwnDaemonThread() {
        Adapter adapter = start("100ms");
        assertThat(runtime.reloads().period()).isEqualTo(Duration.ofMillis(100));

        values.put("sluice.limit.api.rate", "3/1m");

        await().atMost(Duration.ofSeconds(10)).until(() -> adapter.rateTokens() == 3);
        Thread refresher = refreshThread();
        assertThat(refresher.isDaemon()).isTrue();
        assertThat(refresher.getName()).contains("sluice-config-refresh");
    }

    @Test
    void closingTheRuntimeStopsTheRefreshThread() throws InterruptedException {
        start("100ms");
        await().atMost(Duration.ofSeconds(10)).until(() -> refreshThreadOrNull() != null);
        Thread refresher = refreshThread();

        runtime.close();

        refresher.join(10_000);
        assertThat(refresher.isAlive()).isFalse();
        assertThat(runtime.reloads().isRefreshing()).isFalse();
        assertThat(runtime.reloads().reload()).isEqualTo("closed");
    }

    @Test
    void withoutARefreshPeriodNoThreadStarts() {
        start("0");
        assertThat(runtime.reloads().isRefreshing()).isFalse();
        assertThat(refreshThreadOrNull()).isNull();
    }

    @Test
    void theJmxOperationReloads() throws Exception {
        values.put("sluice.config.refresh", "0");
        Adapter adapter = new Adapter();
        runtime = SluiceRuntime.start(adapter.deployed, "reload-test", null);
        runtime.reloads().register(adapter, getClass().getClassLoader(), Duration.ZERO);
        ObjectName name = new ObjectName("dev.sluice:type=Config,app=" + runtime.metrics().app());
        var server = ManagementFactory.getPlatformMBeanServer();

        values.put("sluice.limit.api.rate", "4/1m");
        Object summary = server.invoke(name, "reload", new Object[0], new String[0]);
        values.put("sluice.limit.api.rate", "-4/1m");
        server.invoke(name, "reload", new Object[0], new String[0]);

        assertThat(summary).asString().contains("api: rate 10/1m -> 4/1m");
        assertThat(adapter.rateTokens()).isEqualTo(4);
        assertThat(server.getAttribute(name, "AppliedReloads")).isEqualTo(1L);
        assertThat(server.getAttribute(name, "RefusedReloads")).isEqualTo(1L);

        runtime.close();
        assertThat(server.isRegistered(name)).as("unregistered with the runtime").isFalse();
    }

    private static Thread refreshThreadOrNull() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("sluice-config-refresh")).findFirst().orElse(null);
    }

    private static Thread refreshThread() {
        Thread t = refreshThreadOrNull();
        assertThat(t).as("the refresh thread").isNotNull();
        return t;
    }
}
