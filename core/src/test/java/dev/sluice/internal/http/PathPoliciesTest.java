package dev.sluice.internal.http;

import dev.sluice.internal.config.ConfigSources;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The servlet filter's snapshot: the gate's policies by path, compared and reported by the policies with paths. */
class PathPoliciesTest {

    private static PathPolicies of(Map<String, String> values) {
        return PathPolicies.of(AdapterConfig.load(ConfigSources.of(values)));
    }

    private static Map<String, String> api(String rate) {
        Map<String, String> values = new HashMap<>(Map.of("sluice.limit.api.rate", rate, "sluice.limit.api.paths", "/api/*",
                "sluice.limit.other.rate", "1/1s"));
        values.put("sluice.limit.off.rate", "1/1s");
        values.put("sluice.limit.off.paths", "/off");
        values.put("sluice.limit.off.enabled", "false");
        return values;
    }

    @Test
    void itMatchesTheEnabledPoliciesWithPathsAndAppliesOnlyThem() {
        PathPolicies policies = of(api("10/1m"));

        assertThat(policies.matcher().matching("GET", "/api/orders")).extracting(RateLimitGate.Policy::name)
                .containsExactly("api");
        assertThat(policies.matcher().matching("GET", "/off")).isEmpty();
        assertThat(policies.names()).containsExactly("api");
        assertThat(policies.policyNames()).containsExactly("api");
        assertThat(policies.isEmpty()).isFalse();
        assertThat(of(Map.of("sluice.limit.other.rate", "1/1s")).isEmpty()).isTrue();
    }

    @Test
    void policiesWithoutPathsDoNotMakeItDiffer() {
        Map<String, String> changedElsewhere = api("10/1m");
        changedElsewhere.put("sluice.limit.other.rate", "2/1s");

        assertThat(of(changedElsewhere)).isEqualTo(of(api("10/1m"))).hasSameHashCodeAs(of(api("10/1m")));
        assertThat(of(changedElsewhere).changesFrom(of(api("10/1m")))).isEmpty();
    }

    @Test
    void aChangedPolicyWithPathsIsReportedAndSoIsOneSwitchedOn() {
        Map<String, String> switchedOn = api("20/1m");
        switchedOn.put("sluice.limit.off.enabled", "true");

        PathPolicies after = of(switchedOn);

        assertThat(after).isNotEqualTo(of(api("10/1m")));
        assertThat(after.changesFrom(of(api("10/1m")))).extracting(Object::toString)
                .containsExactly("api: rate 10/1m -> 20/1m", "off: enabled false -> true");
        assertThat(after.names()).containsExactly("api", "off");
    }
}
