package dev.sluice.internal.http;

import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.runtime.ConfigReloads;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The JAX-RS feature's snapshot: the policies of every limited resource method, by the index the method's
 * filter was given, with the annotations they were resolved from, so that a reload resolves every method again
 * (configuration over annotations, as at deployment). Equal when every method's policies have the same
 * configuration. Immutable and thread-safe.
 */
public final class MethodLimits implements AdapterSnapshot<MethodLimits> {

    /** No limited method yet. */
    public static final MethodLimits NONE = new MethodLimits(List.of());

    private record Limited(String where, List<AnnotatedPolicies.Declared> classLevel,
                           List<AnnotatedPolicies.Declared> methodLevel, List<RateLimitGate.Policy> policies) {

        List<PolicyConfig> configs() {
            return policies.stream().map(RateLimitGate.Policy::config).toList();
        }
    }

    private final List<Limited> methods;

    private MethodLimits(List<Limited> methods) {
        this.methods = List.copyOf(methods);
    }

    /**
     * This with one more method, at index {@link #size()}.
     *
     * @param policies what {@link AnnotatedPolicies#resolve} made of the annotations at deployment
     */
    public MethodLimits with(String where, List<AnnotatedPolicies.Declared> classLevel,
            List<AnnotatedPolicies.Declared> methodLevel, List<RateLimitGate.Policy> policies) {
        List<Limited> next = new ArrayList<>(methods);
        next.add(new Limited(where, List.copyOf(classLevel), List.copyOf(methodLevel), List.copyOf(policies)));
        return new MethodLimits(next);
    }

    /**
     * Every method resolved again over {@code config}.
     *
     * @throws dev.sluice.SluiceConfigException naming method and policy when a policy cannot be resolved
     */
    public MethodLimits resolvedAgain(AdapterConfig config) {
        AnnotatedPolicies fresh = config.annotatedPolicies();
        List<Limited> next = new ArrayList<>(methods.size());
        for (Limited m : methods) {
            next.add(new Limited(m.where, m.classLevel, m.methodLevel, fresh.resolve(m.where, m.classLevel, m.methodLevel)));
        }
        return new MethodLimits(next);
    }

    /** How many methods it holds. */
    public int size() {
        return methods.size();
    }

    /** The policies in force of the method at {@code index}. */
    public List<RateLimitGate.Policy> policies(int index) {
        return methods.get(index).policies;
    }

    /** The policies of the methods whose configuration changed: before as one of them had it, and after. */
    @Override
    public List<ConfigReloads.Change> changesFrom(MethodLimits before) {
        Map<String, PolicyConfig> was = new TreeMap<>();
        Map<String, PolicyConfig> is = new TreeMap<>();
        for (int i = 0; i < Math.min(methods.size(), before.methods.size()); i++) {
            Limited b = before.methods.get(i);
            Limited a = methods.get(i);
            if (!a.configs().equals(b.configs())) {
                b.policies.forEach(p -> was.putIfAbsent(p.name(), p.config()));
                a.policies.forEach(p -> is.putIfAbsent(p.name(), p.config()));
            }
        }
        return ConfigReloads.changes(was, is);
    }

    @Override
    public Set<String> policyNames() {
        Set<String> names = new TreeSet<>();
        methods.forEach(m -> m.policies.forEach(p -> names.add(p.name())));
        return names;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MethodLimits other && configs().equals(other.configs());
    }

    @Override
    public int hashCode() {
        return configs().hashCode();
    }

    private List<List<PolicyConfig>> configs() {
        return methods.stream().map(Limited::configs).toList();
    }
}
