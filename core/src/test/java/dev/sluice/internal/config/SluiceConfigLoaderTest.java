package dev.sluice.internal.config;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static dev.sluice.internal.config.Rejections.rejects;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SluiceConfigLoaderTest {

    private static SluiceConfig load(Map<String, String> values) {
        return SluiceConfigLoader.load(ConfigSources.of(values));
    }

    @Test
    void appliesDocumentedDefaultsToAnEmptyConfiguration() {
        SluiceConfig c = load(Map.of());
        assertThat(c.keyPrefix()).isEqualTo("sluice");
        assertThat(c.onRedisFailure()).isEqualTo(FailureMode.ALLOW);
        assertThat(c.headers()).isEqualTo(HeaderMode.IETF);
        assertThat(c.filterEnabled()).isTrue();
        assertThat(c.trustedProxies()).isEmpty();
        assertThat(c.forwardingHeader()).isEqualTo(ForwardingHeader.X_FORWARDED_FOR);
        assertThat(c.ipv6Prefix()).isEqualTo(64);
        assertThat(c.scripts()).isEmpty();
        assertThat(c.policies()).isEmpty();
        assertThat(c.lock("Any.thing")).isEqualTo(LockSettings.NONE);
    }

    @Test
    void readsTopLevelSettings() {
        SluiceConfig c = load(Map.of(
                "sluice.key-prefix", "shop.v2",
                "sluice.on-redis-failure", "deny",
                "sluice.headers", "BOTH",
                "sluice.filter.enabled", "false",
                "sluice.trusted-proxies", "10.0.0.0/8, ::1",
                "sluice.script.gcra", "classpath:/custom/gcra.lua",
                "sluice.script.lock-acquire", "file:/etc/sluice/lock.lua"));
        assertThat(c.keyPrefix()).isEqualTo("shop.v2");
        assertThat(c.onRedisFailure()).isEqualTo(FailureMode.DENY);
        assertThat(c.headers()).isEqualTo(HeaderMode.BOTH);
        assertThat(c.filterEnabled()).isFalse();
        assertThat(c.trustedProxies()).extracting(Cidr::toString).containsExactly("10.0.0.0/8", "::1");
        assertThat(c.scripts()).containsEntry("gcra", "classpath:/custom/gcra.lua")
                .containsEntry("lock-acquire", "file:/etc/sluice/lock.lua");
    }

    @Test
    void aReplacementForAScriptThatDoesNotExistFailsTheDeploymentListingTheNames() {
        String message = rejects(Map.of("sluice.script.gcrra", "classpath:/custom/gcra.lua"), "sluice.script.gcrra",
                "\"gcrra\"");
        assertThat(message).contains("did you mean sluice.script.gcra?").contains(String.join(", ",
                SluiceConfigLoader.SCRIPT_NAMES));
    }

    @Test
    void theFragmentScriptsIncludeIsNoScriptOfItsOwn() {
        rejects(Map.of("sluice.script.permit-set", "file:/etc/sluice/permit-set.lua"), "sluice.script.permit-set",
                "\"permit-set\"");
    }

    @Test
    void theScriptNamesAreExactlyTheBundledScripts() throws Exception {
        java.nio.file.Path dir = java.nio.file.Path.of(SluiceConfigLoader.class.getClassLoader()
                .getResource("dev/sluice/scripts/gcra.lua").toURI()).getParent();
        try (var files = java.nio.file.Files.list(dir)) {
            assertThat(files.filter(java.nio.file.Files::isRegularFile)
                    .map(f -> f.getFileName().toString().replaceFirst("\\.lua$", "")))
                    .containsExactlyInAnyOrderElementsOf(SluiceConfigLoader.SCRIPT_NAMES);
        }
    }

    @Test
    void aPolicyWithNeitherRateNorPathsOnlyOverridesAnnotationValuesAndLoads() {
        SluiceConfig c = load(Map.of("sluice.limit.search.key", "header:X-Tenant", "sluice.limit.search.cost", "2"));
        assertThat(c.policies()).as("its rate comes from @RateLimited").doesNotContainKey("search");
    }

    @Test
    void anOverrideOnlyPolicyIsStillValidated() {
        rejects(Map.of("sluice.limit.search.key", "cookie"), "sluice.limit.search.key", "\"cookie\"");
        rejects(Map.of("sluice.limit.search.cots", "2"), "sluice.limit.search.cots", "\"cots\"");
        rejects(Map.of("sluice.limit.search.on-redis-failure", "maybe"), "sluice.limit.search.on-redis-failure",
                "\"maybe\"");
    }

    @Test
    void readsAPolicysOwnFailureModeOverTheGlobalOne() {
        SluiceConfig c = load(Map.of("sluice.on-redis-failure", "deny",
                "sluice.limit.login.rate", "5/1m", "sluice.limit.api.rate", "100/1s",
                "sluice.limit.api.on-redis-failure", "allow"));
        assertThat(c.policy("login").orElseThrow().onRedisFailure()).isEqualTo(FailureMode.DENY);
        assertThat(c.policy("api").orElseThrow().onRedisFailure()).isEqualTo(FailureMode.ALLOW);
    }

    @Test
    void treatsBlankScriptOverrideAsAbsent() {
        assertThat(load(Map.of("sluice.script.gcra", " ")).scripts()).isEmpty();
    }

    @Test
    void readsAFullPolicy() {
        PolicyConfig p = load(Map.of(
                "sluice.limit.login.rate", "5/1m,20/1h",
                "sluice.limit.login.burst", "3",
                "sluice.limit.login.key", "header:X-Api-Key",
                "sluice.limit.login.paths", "/login, /api/*, *.jsp, /",
                "sluice.limit.login.methods", "post, Get",
                "sluice.limit.login.cost", "2",
                "sluice.limit.login.enabled", "false")).policy("login").orElseThrow();
        assertThat(p.name()).isEqualTo("login");
        assertThat(p.bandwidths()).containsExactly(
                new Bandwidth(5, Duration.ofMinutes(1), 3), new Bandwidth(20, Duration.ofHours(1), 20));
        assertThat(p.key()).isEqualTo(new KeySpec(KeySpec.Type.HEADER, "X-Api-Key"));
        assertThat(p.paths()).containsExactly("/login", "/api/*", "*.jsp", "/");
        assertThat(p.methods()).containsExactlyInAnyOrder("POST", "GET");
        assertThat(p.cost()).isEqualTo(2);
        assertThat(p.enabled()).isFalse();
    }

    @Test
    void givesAPolicyWithOnlyARateItsDefaults() {
        PolicyConfig p = load(Map.of("sluice.limit.api.rate", "100/1m")).policy("api").orElseThrow();
        assertThat(p.key()).isEqualTo(KeySpec.IP);
        assertThat(p.paths()).isEmpty();
        assertThat(p.methods()).isEmpty();
        assertThat(p.cost()).isEqualTo(1);
        assertThat(p.enabled()).isTrue();
        assertThat(p.bandwidths().get(0).capacity()).isEqualTo(100);
    }

    @Test
    void readsEveryKeyResolverForm() {
        assertThat(keyOf("ip")).isEqualTo(KeySpec.IP);
        assertThat(keyOf("principal")).isEqualTo(new KeySpec(KeySpec.Type.PRINCIPAL, ""));
        assertThat(keyOf("path")).isEqualTo(new KeySpec(KeySpec.Type.PATH, ""));
        assertThat(keyOf("global")).isEqualTo(new KeySpec(KeySpec.Type.GLOBAL, ""));
        assertThat(keyOf("query:tenant")).isEqualTo(new KeySpec(KeySpec.Type.QUERY, "tenant"));
        assertThat(keyOf("path-param:orderId")).isEqualTo(new KeySpec(KeySpec.Type.PATH_PARAM, "orderId"));
        assertThat(keyOf("bean:tenantKey")).isEqualTo(new KeySpec(KeySpec.Type.BEAN, "tenantKey"));
        assertThat(keyOf("bean:tenantKey").toString()).isEqualTo("bean:tenantKey");
    }

    private static KeySpec keyOf(String value) {
        return load(Map.of("sluice.limit.p.rate", "1/s", "sluice.limit.p.key", value)).policy("p").orElseThrow().key();
    }

    @Test
    void readsLockNamesThatContainDots() {
        SluiceConfig c = load(Map.of(
                "sluice.lock.OrderService.place.lease", "45s",
                "sluice.lock.OrderService.place.max-wait", "0",
                "sluice.lock.simple.max-wait", "2s"));
        assertThat(c.lock("OrderService.place"))
                .isEqualTo(new LockSettings(Optional.of(Duration.ofSeconds(45)), Optional.of(Duration.ZERO), Optional.empty()));
        assertThat(c.lock("simple").maxWait()).contains(Duration.ofSeconds(2));
        assertThat(c.locks()).containsOnlyKeys("OrderService.place", "simple");
    }

    @Test
    void readsSemaphoreOverrides() {
        SluiceConfig c = load(Map.of(
                "sluice.semaphore.pdf-render.permits", "8",
                "sluice.semaphore.pdf-render.lease", "2m",
                "sluice.semaphore.pdf-render.max-wait", "PT10S"));
        assertThat(c.semaphore("pdf-render")).isEqualTo(new LockSettings(
                Optional.of(Duration.ofMinutes(2)), Optional.of(Duration.ofSeconds(10)), Optional.of(8)));
    }

    @Test
    void loadsOnePolicyAndTellsWhetherConfigurationDefinesIt() {
        ConfigSource source = ConfigSources.of(Map.of("sluice.limit.search.rate", "10/1s", "sluice.limit.off.enabled", "false"));
        assertThat(SluiceConfigLoader.definesPolicy("search", source)).isTrue();
        assertThat(SluiceConfigLoader.definesPolicy("off", source)).isTrue();
        assertThat(SluiceConfigLoader.definesPolicy("annotated", source)).isFalse();
        assertThat(SluiceConfigLoader.loadPolicy("search", source).bandwidths()).hasSize(1);
        rejects(() -> SluiceConfigLoader.loadPolicy("annotated", source), "sluice.limit.annotated.rate", "(absent)");
    }

    @Test
    void loadPolicyChecksAttributeNamesToo() {
        ConfigSource source = ConfigSources.of(Map.of("sluice.limit.search.rate", "10/1s", "sluice.limit.search.brust", "5"));
        rejects(() -> SluiceConfigLoader.loadPolicy("search", source), "sluice.limit.search.brust", "\"brust\"");
    }

    // --- bad values: each message names the key and the value ---

    @Test
    void rejectsBadRate() {
        rejects(Map.of("sluice.limit.api.rate", "ten/s"), "sluice.limit.api.rate", "\"ten/s\"");
    }

    @Test
    void rejectsZeroTokensInRate() {
        rejects(Map.of("sluice.limit.api.rate", "0/1s"), "sluice.limit.api.rate", "\"0/1s\"");
    }

    @Test
    void rejectsPolicyWithoutRate() {
        String message = rejects(Map.of("sluice.limit.api.paths", "/api/*"), "sluice.limit.api.rate", "(absent)");
        assertThat(message).contains("policy \"api\"", "sluice.limit.api.paths");
    }

    @Test
    void rejectsUnknownKeyResolver() {
        String message = rejects(Map.of("sluice.limit.api.rate", "1/s", "sluice.limit.api.key", "cookie"),
                "sluice.limit.api.key", "\"cookie\"");
        assertThat(message).contains("unknown key resolver", "header:<Name>", "bean:");
    }

    @Test
    void rejectsKeyResolverWithoutItsArgument() {
        rejects(Map.of("sluice.limit.api.rate", "1/s", "sluice.limit.api.key", "header:"),
                "sluice.limit.api.key", "\"header:\"");
    }

    @Test
    void rejectsHeaderNameThatIsNotAToken() {
        rejects(Map.of("sluice.limit.api.rate", "1/s", "sluice.limit.api.key", "header:X Api"),
                "sluice.limit.api.key", "\"header:X Api\"");
    }

    @Test
    void rejectsPathParamKeyOnAFilterPolicy() {
        rejects(Map.of("sluice.limit.api.rate", "1/s", "sluice.limit.api.key", "path-param:id",
                "sluice.limit.api.paths", "/orders/*"), "sluice.limit.api.key", "\"path-param:id\"");
    }

    @Test
    void rejectsBurstSmallerThanCost() {
        String message = rejects(Map.of("sluice.limit.api.rate", "10/1s", "sluice.limit.api.burst", "3",
                "sluice.limit.api.cost", "5"), "sluice.limit.api.cost", "\"5\"");
        assertThat(message).contains("sluice.limit.api.burst \"3\"", "burst smaller than cost");
    }

    @Test
    void rejectsCostAboveTheTokensOfTheFirstBandwidthWhenNoBurstIsSet() {
        String message = rejects(Map.of("sluice.limit.api.rate", "4/1s", "sluice.limit.api.cost", "5"),
                "sluice.limit.api.cost", "\"5\"");
        assertThat(message).contains("\"4/1s\"", "sluice.limit.api.burst");
    }

    @Test
    void rejectsCostAboveTheTokensOfALaterBandwidth() {
        rejects(Map.of("sluice.limit.api.rate", "10/1s,3/1h", "sluice.limit.api.burst", "20",
                "sluice.limit.api.cost", "5"), "sluice.limit.api.cost", "\"5\"");
    }

    @Test
    void rejectsZeroCost() {
        rejects(Map.of("sluice.limit.api.rate", "10/1s", "sluice.limit.api.cost", "0"), "sluice.limit.api.cost", "\"0\"");
    }

    @Test
    void rejectsZeroBurst() {
        rejects(Map.of("sluice.limit.api.rate", "10/1s", "sluice.limit.api.burst", "0"), "sluice.limit.api.burst", "\"0\"");
    }

    @Test
    void rejectsNegativeBurst() {
        rejects(Map.of("sluice.limit.api.rate", "10/1s", "sluice.limit.api.burst", "-1"), "sluice.limit.api.burst", "\"-1\"");
    }

    @Test
    void rejectsMalformedPath() {
        String message = rejects(Map.of("sluice.limit.api.rate", "1/s", "sluice.limit.api.paths", "/api/*,api/*"),
                "sluice.limit.api.paths", "\"api/*\"");
        assertThat(message).contains("/prefix/*");
    }

    @Test
    void rejectsWildcardInTheMiddleOfAPath() {
        rejects(Map.of("sluice.limit.api.rate", "1/s", "sluice.limit.api.paths", "/api/*/items"),
                "sluice.limit.api.paths", "\"/api/*/items\"");
    }

    @Test
    void rejectsMethodThatIsNotAToken() {
        rejects(Map.of("sluice.limit.api.rate", "1/s", "sluice.limit.api.methods", "GET,PO ST"),
                "sluice.limit.api.methods", "\"PO ST\"");
    }

    @Test
    void rejectsPolicyEnabledSpeltOtherThanTrueOrFalse() {
        rejects(Map.of("sluice.limit.api.rate", "1/s", "sluice.limit.api.enabled", "yes"),
                "sluice.limit.api.enabled", "\"yes\"");
    }

    @Test
    void rejectsUnknownPolicyAttribute() {
        String message = rejects(Map.of("sluice.limit.x.rate", "1/s", "sluice.limit.x.rat", "1/s"),
                "sluice.limit.x.rat", "\"rat\"");
        assertThat(message).contains("did you mean rate?", "rate, burst, key, paths, methods, cost, enabled");
    }

    @Test
    void rejectsPolicyNameThatWouldChangeRedisKeys() {
        rejects(Map.of("sluice.limit.{api}.rate", "1/s"), "sluice.limit.{api}.rate", "\"{api}\"");
    }

    @Test
    void rejectsBadFilterEnabled() {
        rejects(Map.of("sluice.filter.enabled", "on"), "sluice.filter.enabled", "\"on\"");
    }

    @Test
    void rejectsUnknownFailureMode() {
        String message = rejects(Map.of("sluice.on-redis-failure", "open"), "sluice.on-redis-failure", "\"open\"");
        assertThat(message).contains("allow, deny");
    }

    @Test
    void rejectsUnknownHeaderMode() {
        rejects(Map.of("sluice.headers", "draft"), "sluice.headers", "\"draft\"");
    }

    @Test
    void rejectsBadCidr() {
        rejects(Map.of("sluice.trusted-proxies", "10.0.0.0/8,proxy.local"), "sluice.trusted-proxies", "\"proxy.local\"");
    }

    @Test
    void rejectsPrefixLengthOutOfRange() {
        rejects(Map.of("sluice.trusted-proxies", "10.0.0.0/33"), "sluice.trusted-proxies", "\"10.0.0.0/33\"");
    }

    @Test
    void readsTheForwardingHeaderAndTheIpv6Prefix() {
        SluiceConfig c = load(Map.of("sluice.forwarding-header", "Forwarded", "sluice.ipv6-prefix", "48"));
        assertThat(c.forwardingHeader()).isEqualTo(ForwardingHeader.FORWARDED);
        assertThat(c.ipv6Prefix()).isEqualTo(48);
        assertThat(load(Map.of("sluice.forwarding-header", "x-forwarded-for", "sluice.ipv6-prefix", "128"))
                .forwardingHeader()).isEqualTo(ForwardingHeader.X_FORWARDED_FOR);
        assertThat(load(Map.of("sluice.ipv6-prefix", "32")).ipv6Prefix()).isEqualTo(32);
    }

    @Test
    void readsNat64PrefixesAlwaysWithTheWellKnownOne() {
        assertThat(load(Map.of()).nat64Prefixes()).containsExactly(Cidr.parse("x", "64:ff9b::/96"));
        assertThat(load(Map.of("sluice.nat64-prefixes", "2001:db8:64::/96, 2001:db8:65:0:0:0::/96")).nat64Prefixes())
                .containsExactly(Cidr.parse("x", "64:ff9b::/96"), Cidr.parse("x", "2001:db8:64::/96"),
                        Cidr.parse("x", "2001:db8:65::/96"));
    }

    @Test
    void rejectsANat64PrefixThatIsNotAnIpv6Slash96() {
        for (String bad : List.of("2001:db8:64::/64", "2001:db8:64::", "192.0.2.0/24", "2001:db8:64::1/96", "x",
                "::ffff:0:0/96")) {
            assertThat(rejects(Map.of("sluice.nat64-prefixes", bad), "sluice.nat64-prefixes", "\"" + bad + "\""))
                    .as(bad).contains("IPv6 /96 prefixes");
        }
    }

    @Test
    void rejectsAForwardingHeaderOtherThanTheTwoKnown() {
        assertThat(rejects(Map.of("sluice.forwarding-header", "both"), "sluice.forwarding-header", "\"both\""))
                .contains("x-forwarded-for").contains("forwarded");
        rejects(Map.of("sluice.forwarding-header", "X-Real-IP"), "sluice.forwarding-header", "\"X-Real-IP\"");
    }

    @Test
    void rejectsAnIpv6PrefixOutside32To128() {
        for (String bad : new String[] {"31", "129", "0", "-64", "64.0", "/64", "sixty-four"}) {
            assertThat(rejects(Map.of("sluice.ipv6-prefix", bad), "sluice.ipv6-prefix", "\"" + bad + "\""))
                    .contains("32 to 128");
        }
    }

    @Test
    void rejectsKeyPrefixWithColon() {
        rejects(Map.of("sluice.key-prefix", "app:v1"), "sluice.key-prefix", "\"app:v1\"");
    }

    @Test
    void rejectsKeyPrefixWithHashTagBraces() {
        rejects(Map.of("sluice.key-prefix", "{app}"), "sluice.key-prefix", "\"{app}\"");
    }

    @Test
    void rejectsScriptLocationWithoutScheme() {
        rejects(Map.of("sluice.script.gcra", "/opt/gcra.lua"), "sluice.script.gcra", "\"/opt/gcra.lua\"");
    }

    @Test
    void rejectsZeroLockLease() {
        rejects(Map.of("sluice.lock.Orders.place.lease", "0s"), "sluice.lock.Orders.place.lease", "\"0s\"");
    }

    @Test
    void rejectsNegativeLockMaxWait() {
        rejects(Map.of("sluice.lock.Orders.place.max-wait", "-5s"), "sluice.lock.Orders.place.max-wait", "\"-5s\"");
    }

    @Test
    void rejectsZeroSemaphorePermits() {
        rejects(Map.of("sluice.semaphore.pdf.permits", "0"), "sluice.semaphore.pdf.permits", "\"0\"");
    }

    @Test
    void rejectsUnknownLockAttribute() {
        String message = rejects(Map.of("sluice.lock.Orders.place.lese", "5s"), "sluice.lock.Orders.place.lese", "lease");
        assertThat(message).contains("sluice.lock.<name>.max-wait");
    }

    @Test
    void rejectsMisspeltKeyAndSuggestsTheRightOne() {
        String message = rejects(Map.of("sluice.redis.url", "redis://localhost:6379"), "sluice.redis.url", "sluice.redis.uri");
        assertThat(message).contains("did you mean sluice.redis.uri?");
    }

    @Test
    void rejectsMisspeltFamily() {
        String message = rejects(Map.of("sluice.limits.api.rate", "1/s"), "sluice.limits.api.rate", "sluice.limit.api.rate");
        assertThat(message).contains("did you mean sluice.limit.api.rate?");
    }

    @Test
    void neverShowsTheValueOfAnUnknownKeyBecauseItMayBeAMisspeltPassword() {
        assertThatThrownBy(() -> load(Map.of("sluice.redis.pasword", "hunter2")))
                .hasMessageStartingWith("sluice.redis.pasword:")
                .hasMessageContaining("did you mean sluice.redis.password?")
                .hasMessageNotContaining("hunter2");
    }

    @Test
    void ignoresNamesOutsideTheSluicePrefix() {
        assertThat(load(Map.of("sluicex.whatever", "1", "other.key", "2")).policies()).isEmpty();
    }
}
