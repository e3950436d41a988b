package dev.sluice.internal.http;

import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.runtime.ConfigReloads;

import java.util.Collections;
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

    private final PathMatcher<RateLimitGate.Policy> matcher;
    private final Set<String> names;
    /** The policies this filter applies or would apply when switched on: those with paths, disabled ones too. */
    private final Map<String, PolicyConfig> withPaths;

    private PathPolicies(PathMatcher<RateLimitGate.Policy> matcher, Set<String> names, Map<String, PolicyConfig> withPaths) {
        this.matcher = matcher;
        this.names = names;
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
        Set<String> names = new TreeSet<>();
        Map<String, PolicyConfig> withPaths = new HashMap<>();
        for (PolicyConfig policy : c.policies().values()) {
            if (!policy.paths().isEmpty()) {
                withPaths.put(policy.name(), policy);
                if (policy.enabled()) {
                    names.add(policy.name());
                }
            }
        }
        PathMatcher<RateLimitGate.Policy> matcher = PathMatcher.of(c.policies().values(),
                policy -> RateLimitGate.Policy.of(policy, false));
        return new PathPolicies(matcher, Collections.unmodifiableSet(names), Map.copyOf(withPaths));
    }

    /**
     * What a request is matched against: {@link PathMatcher#matching} answers the gate's policies whose paths and
     * methods match it, ordered by name.
     */
    public PathMatcher<RateLimitGate.Policy> matcher() {
        return matcher;
    }

    /** Whether no policy applies to any path (the filter then never calls the store). */
    public boolean isEmpty() {
        return matcher.isEmpty();
    }

    /** The names of the policies it applies, sorted. */
    public Set<String> names() {
        return names;
    }

    @Override
    public Set<String> policyNames() {
        return names;
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
