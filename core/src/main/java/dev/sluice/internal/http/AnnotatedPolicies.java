package dev.sluice.internal.http;

import dev.sluice.SluiceConfigException;
import dev.sluice.internal.config.ConfigProblems;
import dev.sluice.internal.config.ConfigSource;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfigLoader;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The policies of {@code @RateLimited} annotations, validated: the JAX-RS adapter reads the annotations of a
 * resource method ({@link Declared}) and this resolves them over the application's configuration.
 *
 * <p>Order of precedence, per key of {@code sluice.limit.<policy>.*}: the configuration, then the inline member of
 * the annotation. A policy named on both the class and the method is taken from the method.
 *
 * <p>One instance per reading of an application's configuration: it remembers each policy's bandwidths so that two
 * methods naming one policy cannot silently disagree on the size of a bucket they share. Thread-safe (JAX-RS
 * runtimes may configure resource methods concurrently).
 */
public final class AnnotatedPolicies {

    /**
     * One {@code @RateLimited} annotation's members, as written (blank and 0 mean unset).
     *
     * @param name the policy's name ({@code value})
     */
    public record Declared(String name, String rate, long burst, String key, long cost) {
    }

    private record Seen(PolicyConfig policy, String where) {
    }

    private final ConfigSource config;
    private final Map<String, Seen> seen = new HashMap<>();

    /** @param config the application's settings, without any inline default */
    public AnnotatedPolicies(ConfigSource config) {
        this.config = config;
    }

    /**
     * The enabled policies of one resource method, in declaration order (class first).
     *
     * @param where       the method as messages name it: {@code com.example.SearchResource#search(String, int)}
     * @param classLevel  the annotations of its resource class
     * @param methodLevel the annotations of the method, or of the first overridden declaration that has any
     * @throws SluiceConfigException naming the method and the policy when a policy is unknown and has no inline
     *                               rate, when a value is bad, when one method names a policy twice, when two methods
     *                               give one policy different bandwidths, or when the key cannot be derived
     */
    public List<RateLimitGate.Policy> resolve(String where, List<Declared> classLevel, List<Declared> methodLevel) {
        Map<String, Declared> chosen = new LinkedHashMap<>();
        for (Declared annotation : classLevel) {
            chosen.putIfAbsent(annotation.name(), annotation);
        }
        Set<String> onMethod = new LinkedHashSet<>();
        for (Declared annotation : methodLevel) {
            if (!onMethod.add(annotation.name())) {
                String key = "sluice.limit." + annotation.name() + ".rate";
                throw ConfigProblems.onAnnotation(key, "@RateLimited(\"" + annotation.name() + "\")",
                        "appears twice on " + where,
                        "each policy at most once per method (a request is charged once per policy)");
            }
            chosen.put(annotation.name(), annotation);
        }
        List<RateLimitGate.Policy> policies = new ArrayList<>(chosen.size());
        for (Declared annotation : chosen.values()) {
            PolicyConfig policy = policy(annotation, where);
            if (policy.enabled()) {
                policies.add(gatePolicy(policy, where));
            }
        }
        return List.copyOf(policies);
    }

    private static RateLimitGate.Policy gatePolicy(PolicyConfig policy, String where) {
        try {
            return RateLimitGate.Policy.of(policy, true);
        } catch (SluiceConfigException e) {
            throw ConfigProblems.onAnnotation("@RateLimited(\"" + policy.name() + "\")", where, e);
        }
    }

    private PolicyConfig policy(Declared annotation, String where) {
        String name = annotation.name();
        String prefix = "sluice.limit." + name + ".";
        String rateKey = prefix + "rate";
        if (annotation.rate().isBlank() && !SluiceConfigLoader.definesPolicy(name, config)) {
            throw ConfigProblems.absent(rateKey, ", and @RateLimited(\"" + name + "\") on " + where
                    + " has no inline rate, so policy \"" + name + "\" has no limit", "the policy in the configuration"
                    + " (for example " + rateKey + "=100/1m) or an inline default such as"
                    + " @RateLimited(value = \"" + name + "\", rate = \"100/1m\")");
        }
        Map<String, String> inline = new HashMap<>();
        if (!annotation.rate().isBlank()) {
            inline.put(rateKey, annotation.rate());
        }
        if (annotation.burst() != 0) {
            inline.put(prefix + "burst", Long.toString(annotation.burst()));
        }
        if (!annotation.key().isBlank()) {
            inline.put(prefix + "key", annotation.key());
        }
        if (annotation.cost() != 0) {
            inline.put(prefix + "cost", Long.toString(annotation.cost()));
        }
        PolicyConfig policy;
        try {
            policy = SluiceConfigLoader.loadPolicy(name, ConfigSources.layered(config, ConfigSources.of(inline)));
        } catch (SluiceConfigException e) {
            throw ConfigProblems.onAnnotation("@RateLimited(\"" + name + "\")", where, e);
        }
        checkSameBuckets(policy, where);
        return policy;
    }

    /** Methods naming one policy share its buckets, so they must agree on their size (cost and key may differ). */
    private synchronized void checkSameBuckets(PolicyConfig policy, String where) {
        Seen earlier = seen.putIfAbsent(policy.name(), new Seen(policy, where));
        if (earlier != null && !earlier.policy.bandwidths().equals(policy.bandwidths())) {
            String prefix = "sluice.limit." + policy.name() + ".";
            throw ConfigProblems.onAnnotation(prefix + "rate", "@RateLimited(\"" + policy.name() + "\")", "on " + where
                    + " gives the policy other bandwidths (" + bandwidths(policy) + ") than on " + earlier.where
                    + " (" + bandwidths(earlier.policy) + ")", "one rate and burst per policy, since they share"
                    + " buckets: set " + prefix + "rate and " + prefix + "burst in the configuration or use distinct"
                    + " policy names");
        }
    }

    private static String bandwidths(PolicyConfig policy) {
        return policy.bandwidths().stream()
                .map(b -> b.tokens() + "/" + b.period() + " burst " + b.capacity())
                .collect(Collectors.joining(", "));
    }
}
