package dev.sluice.internal.http;

import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.runtime.ConfigReloads;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The servlet filter's snapshot: the policies with {@code sluice.limit.<policy>.paths}, compiled once into a
 * {@link PathMatcher} and the gate's policies. Equal when the policies with paths are (a reload that changed
 * only other policies leaves the filter's snapshot in place). Immutable and thread-safe.
 */
public final class PathPolicies implements AdapterSnapshot<PathPolicies> {

    private final PathMatcher matcher;
    private final Map<String, RateLimitGate.Policy> policies;
    /** The policies this filter applies or would apply when switched on: those with paths, disabled ones too. */
    private final Map<String, PolicyConfig> withPaths;

    private PathPolicies(PathMatcher matcher, Map<String, RateLimitGate.Policy> policies,
            Map<String, PolicyConfig> withPaths) {
        this.matcher = matcher;
        this.policies = policies;
        this.withPaths = withPaths;
    }

    /**
     * Compiles the policies with paths of {@code config}.
     *
     * @throws dev.sluice.SluiceConfigException when a path is not a servlet url-pattern or a key cannot be derived
     *                                          by a servlet filter
     */
    public static PathPolicies of(AdapterConfig config) {
        SluiceConfig c = config.config();
        Map<String, RateLimitGate.Policy> policies = new HashMap<>();
        Map<String, PolicyConfig> withPaths = new HashMap<>();
        for (PolicyConfig policy : c.policies().values()) {
            if (!policy.paths().isEmpty()) {
                withPaths.put(policy.name(), policy);
                if (policy.enabled()) {
                    policies.put(policy.name(), RateLimitGate.Policy.of(policy, false));
                }
            }
        }
        return new PathPolicies(PathMatcher.of(c.policies().values()), Map.copyOf(policies), Map.copyOf(withPaths));
    }

    /**
     * The policies whose paths and methods match this request, ordered by name; empty (and allocation-free) when
     * none does.
     *
     * @param method HTTP method as sent, in any case
     * @param path   path within the application, starting with {@code /}
     */
    public List<RateLimitGate.Policy> matching(String method, String path) {
        List<PolicyConfig> matched = matcher.matching(method, path);
        if (matched.isEmpty()) {
            return List.of();
        }
        List<RateLimitGate.Policy> candidates = new ArrayList<>(matched.size());
        for (PolicyConfig policy : matched) {
            candidates.add(policies.get(policy.name()));
        }
        return candidates;
    }

    /** Whether no policy applies to any path (the filter then never calls the store). */
    public boolean isEmpty() {
        return matcher.isEmpty();
    }

    /** The names of the policies it applies, sorted. */
    public Set<String> names() {
        return new TreeSet<>(policies.keySet());
    }

    @Override
    public Set<String> policyNames() {
        return policies.keySet();
    }

    @Override
    public List<ConfigReloads.Change> changesFrom(PathPolicies before) {
        return ConfigReloads.changes(before.withPaths, withPaths);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PathPolicies other && withPaths.equals(other.withPaths);
    }

    @Override
    public int hashCode() {
        return withPaths.hashCode();
    }
}
