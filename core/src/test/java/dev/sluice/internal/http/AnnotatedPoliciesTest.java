package dev.sluice.internal.http;

import dev.sluice.SluiceConfigException;
import dev.sluice.internal.config.Bandwidth;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.KeySpec;
import dev.sluice.internal.config.PolicyConfig;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code @RateLimited} members resolved over the configuration: which policies a method gets, what wins, and the
 * messages of what fails the deployment (the JAX-RS module's MethodPoliciesTest reads the annotations themselves).
 */
class AnnotatedPoliciesTest {

    private static final String WHERE = "com.example.Shop#buy(String)";

    private final AnnotatedPolicies none = new AnnotatedPolicies(ConfigSources.empty());

    private static AnnotatedPolicies.Declared inline(String name, String rate) {
        return new AnnotatedPolicies.Declared(name, rate, 0, "", 0);
    }

    private static List<PolicyConfig> configs(List<RateLimitGate.Policy> policies) {
        return policies.stream().map(RateLimitGate.Policy::config).toList();
    }

    @Test
    void classPoliciesComeFirstAndAPolicyOnBothIsTakenFromTheMethod() {
        List<RateLimitGate.Policy> policies = none.resolve(WHERE,
                List.of(inline("api", "100/1m"), inline("search", "5/1s")),
                List.of(new AnnotatedPolicies.Declared("api", "100/1m", 0, "", 5), inline("buy", "1/1s")));

        assertThat(policies).extracting(RateLimitGate.Policy::name).containsExactly("api", "search", "buy");
        assertThat(policies.get(0).config().cost()).isEqualTo(5);
    }

    @Test
    void inlineMembersAreTheDefaultsAndConfigurationWinsKeyByKey() {
        AnnotatedPolicies.Declared declared = new AnnotatedPolicies.Declared("inline", "10/1s", 20, "header:X-Api-Key", 2);
        PolicyConfig defaults = configs(none.resolve(WHERE, List.of(), List.of(declared))).get(0);
        PolicyConfig tuned = configs(new AnnotatedPolicies(ConfigSources.of(Map.of(
                "sluice.limit.inline.rate", "5/1s", "sluice.limit.inline.key", "ip")))
                .resolve(WHERE, List.of(), List.of(declared))).get(0);

        assertThat(defaults.bandwidths()).containsExactly(new Bandwidth(10, Duration.ofSeconds(1), 20));
        assertThat(defaults.key()).isEqualTo(new KeySpec(KeySpec.Type.HEADER, "X-Api-Key"));
        assertThat(defaults.cost()).isEqualTo(2);
        assertThat(tuned.bandwidths()).containsExactly(new Bandwidth(5, Duration.ofSeconds(1), 20));
        assertThat(tuned.key()).isEqualTo(KeySpec.IP);
        assertThat(tuned.cost()).as("not configured: the inline cost").isEqualTo(2);
    }

    @Test
    void aConfiguredPolicyNeedsNoInlineRate() {
        AnnotatedPolicies configured = new AnnotatedPolicies(ConfigSources.of(Map.of("sluice.limit.configured.rate", "7/1m")));

        assertThat(configs(configured.resolve(WHERE, List.of(), List.of(inline("configured", "")))))
                .singleElement().satisfies(p -> assertThat(p.bandwidths().get(0).tokens()).isEqualTo(7));
    }

    @Test
    void anUnknownPolicyWithoutInlineRateFailsNamingMethodAndPolicy() {
        assertThatThrownBy(() -> none.resolve(WHERE, List.of(), List.of(inline("nope", ""))))
                .isInstanceOf(SluiceConfigException.class)
                .hasMessageStartingWith("sluice.limit.nope.rate: (absent)")
                .hasMessageContaining("@RateLimited(\"nope\") on " + WHERE)
                .satisfies(e -> assertThat(((SluiceConfigException) e).key()).isEqualTo("sluice.limit.nope.rate"));
    }

    @Test
    void aBadInlineValueFailsNamingMethodKeyAndValue() {
        assertThatThrownBy(() -> none.resolve(WHERE, List.of(), List.of(inline("bad", "ten/s"))))
                .isInstanceOf(SluiceConfigException.class)
                .hasMessageContaining(WHERE)
                .hasMessageContaining("sluice.limit.bad.rate")
                .hasMessageContaining("\"ten/s\"");
    }

    @Test
    void aKeyTheAdapterCannotDeriveFailsNamingMethodAndPolicy() {
        assertThatThrownBy(() -> none.resolve(WHERE, List.of(),
                List.of(new AnnotatedPolicies.Declared("bean", "1/1s", 0, "bean:noSuchResolver", 0))))
                .isInstanceOf(SluiceConfigException.class)
                .hasMessageContaining("@RateLimited(\"bean\")")
                .hasMessageContaining(WHERE);
    }

    @Test
    void onePolicyTwiceOnAMethodFails() {
        assertThatThrownBy(() -> none.resolve(WHERE, List.of(), List.of(inline("twice", "1/1s"), inline("twice", "1/1s"))))
                .isInstanceOf(SluiceConfigException.class)
                .hasMessageContaining("@RateLimited(\"twice\") appears twice on " + WHERE);
    }

    @Test
    void methodsSharingAPolicyMustAgreeOnItsBandwidthsButNotOnCost() {
        none.resolve("com.example.Shop#search()", List.of(), List.of(inline("api", "100/1m")));
        none.resolve("com.example.Shop#list()", List.of(), List.of(new AnnotatedPolicies.Declared("api", "100/1m", 0, "", 3)));

        assertThatThrownBy(() -> none.resolve(WHERE, List.of(), List.of(inline("api", "50/1m"))))
                .isInstanceOf(SluiceConfigException.class)
                .hasMessageContaining(WHERE)
                .hasMessageContaining("com.example.Shop#search()")
                .hasMessageContaining("50/PT1M burst 50");
    }

    @Test
    void disabledPoliciesAreLeftOut() {
        AnnotatedPolicies switchedOff = new AnnotatedPolicies(ConfigSources.of(Map.of("sluice.limit.off.enabled", "false")));

        assertThat(switchedOff.resolve(WHERE, List.of(), List.of(inline("off", "1/1s")))).isEmpty();
    }
}
