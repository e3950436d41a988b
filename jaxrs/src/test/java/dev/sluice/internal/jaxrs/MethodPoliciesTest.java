package dev.sluice.internal.jaxrs;

import dev.sluice.SluiceConfigException;
import dev.sluice.internal.config.Bandwidth;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.KeySpec;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.http.AnnotatedPolicies;
import dev.sluice.internal.http.RateLimitGate;
import dev.sluice.jaxrs.RateLimited;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MethodPoliciesTest {

    @RateLimited(value = "api", rate = "100/1m")
    static class Annotated {
        public void inherited() {
        }

        @RateLimited(value = "search", rate = "20/1s", key = "principal")
        public void search() {
        }

        @RateLimited(value = "api", rate = "100/1m", cost = 5)
        public void expensive() {
        }

        @RateLimited(value = "a", rate = "1/1s")
        @RateLimited(value = "b", rate = "2/1s")
        @RateLimited(value = "c", rate = "3/1s")
        public void three() {
        }
    }

    static class Subclass extends Annotated {
        @Override
        public void search() {
        }
    }

    static class Plain {
        public void nothing() {
        }

        @RateLimited("nope")
        public void unknown() {
        }

        @RateLimited("configured")
        public void configured() {
        }

        @RateLimited(value = "inline", rate = "10/1s", burst = 20, key = "header:X-Api-Key", cost = 2)
        public void inline() {
        }

        @RateLimited(value = "twice", rate = "1/1s")
        @RateLimited(value = "twice", rate = "1/1s")
        public void twice() {
        }

        @RateLimited(value = "api", rate = "50/1m")
        public void disagrees() {
        }

        @RateLimited(value = "bad", rate = "ten/s")
        public void badRate() {
        }

        @RateLimited(value = "off", rate = "1/1s")
        public void off() {
        }
    }

    private final MethodPolicies none = new MethodPolicies(new AnnotatedPolicies(ConfigSources.empty()));

    @Test
    void classPoliciesApplyToEveryMethodAndMethodPoliciesAddToThem() {
        assertThat(names(configs(none.resolve(Annotated.class, method(Annotated.class, "inherited"))))).containsExactly("api");
        assertThat(names(configs(none.resolve(Annotated.class, method(Annotated.class, "search")))))
                .containsExactly("api", "search");
        assertThat(names(configs(none.resolve(Annotated.class, method(Annotated.class, "three")))))
                .containsExactly("api", "a", "b", "c");
    }

    @Test
    void aPolicyOnClassAndMethodIsTakenFromTheMethodOnce() {
        List<PolicyConfig> policies = configs(none.resolve(Annotated.class, method(Annotated.class, "expensive")));

        assertThat(policies).singleElement().satisfies(p -> assertThat(p.cost()).isEqualTo(5));
    }

    @Test
    void overridingMethodsKeepTheAnnotationsOfTheMethodTheyOverride() {
        assertThat(names(configs(none.resolve(Subclass.class, method(Subclass.class, "search")))))
                .containsExactly("api", "search");
    }

    @Test
    void methodsWithoutAnnotationsHaveNoPolicies() {
        assertThat(MethodPolicies.annotated(Plain.class, method(Plain.class, "nothing"))).isFalse();
        assertThat(MethodPolicies.annotated(Annotated.class, method(Annotated.class, "inherited"))).isTrue();
        assertThat(configs(none.resolve(Plain.class, method(Plain.class, "nothing")))).isEmpty();
    }

    @Test
    void inlineMembersAreTheDefaults() {
        PolicyConfig inline = configs(none.resolve(Plain.class, method(Plain.class, "inline"))).get(0);

        assertThat(inline.bandwidths()).containsExactly(new Bandwidth(10, Duration.ofSeconds(1), 20));
        assertThat(inline.key()).isEqualTo(new KeySpec(KeySpec.Type.HEADER, "X-Api-Key"));
        assertThat(inline.cost()).isEqualTo(2);
    }

    @Test
    void configurationWinsKeyByKey() {
        MethodPolicies tuned = new MethodPolicies(new AnnotatedPolicies(ConfigSources.of(Map.of(
                "sluice.limit.inline.rate", "5/1s",
                "sluice.limit.inline.key", "ip"))));

        PolicyConfig inline = configs(tuned.resolve(Plain.class, method(Plain.class, "inline"))).get(0);

        assertThat(inline.bandwidths()).containsExactly(new Bandwidth(5, Duration.ofSeconds(1), 20));
        assertThat(inline.key()).isEqualTo(KeySpec.IP);
        assertThat(inline.cost()).as("not configured: the inline cost").isEqualTo(2);
    }

    @Test
    void aConfiguredPolicyNeedsNoInlineRate() {
        MethodPolicies configured = new MethodPolicies(new AnnotatedPolicies(ConfigSources.of(Map.of(
                "sluice.limit.configured.rate", "7/1m"))));

        assertThat(configs(configured.resolve(Plain.class, method(Plain.class, "configured"))))
                .singleElement().satisfies(p -> assertThat(p.bandwidths().get(0).tokens()).isEqualTo(7));
    }

    @Test
    void anUnknownPolicyWithoutInlineRateFailsNamingMethodAndPolicy() {
        assertThatThrownBy(() -> configs(none.resolve(Plain.class, method(Plain.class, "unknown"))))
                .isInstanceOf(SluiceConfigException.class)
                .hasMessageStartingWith("sluice.limit.nope.rate: (absent)")
                .hasMessageContaining("@RateLimited(\"nope\") on " + Plain.class.getName() + "#unknown()")
                .satisfies(e -> assertThat(((SluiceConfigException) e).key()).isEqualTo("sluice.limit.nope.rate"));
    }

    @Test
    void aBadInlineValueFailsNamingMethodKeyAndValue() {
        assertThatThrownBy(() -> configs(none.resolve(Plain.class, method(Plain.class, "badRate"))))
                .isInstanceOf(SluiceConfigException.class)
                .hasMessageContaining("#badRate()")
                .hasMessageContaining("sluice.limit.bad.rate")
                .hasMessageContaining("\"ten/s\"");
    }

    @Test
    void onePolicyTwiceOnAMethodFails() {
        assertThatThrownBy(() -> configs(none.resolve(Plain.class, method(Plain.class, "twice"))))
                .isInstanceOf(SluiceConfigException.class)
                .hasMessageContaining("@RateLimited(\"twice\") appears twice on " + Plain.class.getName() + "#twice()");
    }

    @Test
    void methodsSharingAPolicyMustAgreeOnItsBandwidths() {
        configs(none.resolve(Annotated.class, method(Annotated.class, "search")));

        assertThatThrownBy(() -> configs(none.resolve(Plain.class, method(Plain.class, "disagrees"))))
                .isInstanceOf(SluiceConfigException.class)
                .hasMessageContaining("#disagrees()")
                .hasMessageContaining(Annotated.class.getName() + "#search()");
    }

    @Test
    void disabledPoliciesAreLeftOut() {
        MethodPolicies switchedOff = new MethodPolicies(new AnnotatedPolicies(ConfigSources.of(Map.of("sluice.limit.off.enabled", "false"))));

        assertThat(configs(switchedOff.resolve(Plain.class, method(Plain.class, "off")))).isEmpty();
    }

    private static List<PolicyConfig> configs(List<RateLimitGate.Policy> policies) {
        return policies.stream().map(RateLimitGate.Policy::config).toList();
    }

    private static List<String> names(List<PolicyConfig> policies) {
        return policies.stream().map(PolicyConfig::name).toList();
    }

    private static Method method(Class<?> type, String name) {
        try {
            return type.getMethod(name);
        } catch (NoSuchMethodException e) {
            throw new AssertionError(e);
        }
    }
}
