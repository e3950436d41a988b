package dev.sluice.internal.cdi;

import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.http.AdapterConfig;
import dev.sluice.internal.http.AdapterSnapshot;
import dev.sluice.internal.runtime.ConfigReloads;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The CDI extension's snapshot: the configured rate-limit policies that {@code Sluice.limiter()} applies,
 * replaced whole by a reload.
 *
 * @param policies by name
 */
record LimiterPolicies(Map<String, PolicyConfig> policies) implements AdapterSnapshot<LimiterPolicies> {

    LimiterPolicies {
        policies = Map.copyOf(policies);
    }

    static LimiterPolicies of(AdapterConfig config) {
        return new LimiterPolicies(config.config().policies());
    }

    Optional<PolicyConfig> policy(String name) {
        return Optional.ofNullable(policies.get(name));
    }

    @Override
    public List<ConfigReloads.Change> changesFrom(LimiterPolicies before) {
        return ConfigReloads.changes(before.policies, policies);
    }

    @Override
    public Set<String> policyNames() {
        return policies.keySet();
    }
}
