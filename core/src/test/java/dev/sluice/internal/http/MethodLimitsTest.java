package dev.sluice.internal.http;

import dev.sluice.internal.config.ConfigSources;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The JAX-RS snapshot: methods by index, resolved again on reload, compared and reported by configuration. */
class MethodLimitsTest {

    private static final List<AnnotatedPolicies.Declared> API = List.of(new AnnotatedPolicies.Declared("api", "10/1m", 0, "", 0));
    private static final List<AnnotatedPolicies.Declared> SEARCH = List.of(
            new AnnotatedPolicies.Declared("search", "5/1s", 0, "", 0));

    private static AdapterConfig config(Map<String, String> values) {
        return AdapterConfig.load(ConfigSources.of(values));
    }

    private static MethodLimits deployed(AdapterConfig config) {
        AnnotatedPolicies policies = config.annotatedPolicies();
        return MethodLimits.NONE
                .with("A#a()", API, List.of(), policies.resolve("A#a()", API, List.of()))
                .with("B#b()", List.of(), SEARCH, policies.resolve("B#b()", List.of(), SEARCH));
    }

    @Test
    void methodsKeepTheIndexTheyWereAddedAt() {
        MethodLimits limits = deployed(config(Map.of()));

        assertThat(MethodLimits.NONE.size()).isZero();
        assertThat(limits.size()).isEqualTo(2);
        assertThat(limits.policies(0)).extracting(RateLimitGate.Policy::name).containsExactly("api");
        assertThat(limits.policies(1)).extracting(RateLimitGate.Policy::name).containsExactly("search");
        assertThat(limits.policyNames()).containsExactly("api", "search");
    }

    @Test
    void resolvedAgainOverAnUnchangedConfigurationItIsEqual() {
        MethodLimits limits = deployed(config(Map.of()));

        MethodLimits again = limits.resolvedAgain(config(Map.of("sluice.limit.other.rate", "1/1s")));

        assertThat(again).isEqualTo(limits).hasSameHashCodeAs(limits);
        assertThat(again.changesFrom(limits)).isEmpty();
    }

    @Test
    void aChangedPolicyIsReportedOnceAndOnlyItsMethodsDiffer() {
        MethodLimits limits = deployed(config(Map.of()));

        MethodLimits again = limits.resolvedAgain(config(Map.of("sluice.limit.search.rate", "7/1s")));

        assertThat(again).isNotEqualTo(limits);
        assertThat(again.policies(0).get(0).config()).isEqualTo(limits.policies(0).get(0).config());
        assertThat(again.policies(1).get(0).config().bandwidths().get(0).tokens()).isEqualTo(7);
        assertThat(again.changesFrom(limits)).singleElement()
                .satisfies(c -> assertThat(c.toString()).isEqualTo("search: rate 5/1s -> 7/1s"));
    }

    @Test
    void aPolicySwitchedOffLeavesItsMethodWithoutIt() {
        MethodLimits limits = deployed(config(Map.of()));

        MethodLimits again = limits.resolvedAgain(config(Map.of("sluice.limit.api.enabled", "false")));

        assertThat(again.policies(0)).isEmpty();
        assertThat(again.changesFrom(limits)).singleElement()
                .satisfies(c -> assertThat(c.toString()).isEqualTo("api: removed"));
    }
}
