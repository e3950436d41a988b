package dev.sluice.internal.jaxrs;

import dev.sluice.SluiceConfigException;
import dev.sluice.internal.config.ConfigProblems;
import dev.sluice.internal.config.ConfigSource;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.jaxrs.RateLimited;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Maps the {@link RateLimited} annotations of one resource method to validated policies, once, at
 * deployment.
 *
 * <p>Order of precedence, per key of {@code sluice.limit.<policy>.*}: the configuration, then the inline
 * member of the annotation. Which annotations count: every one on the resource class (superclasses through
 * {@code @Inherited}, then implemented interfaces), plus every one on the method; when the method declares
 * none, the first overridden declaration that does (JAX-RS reads its own annotations the same way). A policy
 * named on both the class and the method is taken from the method.
 *
 * <p>One instance per deployed application: it remembers each policy's bandwidths so that two methods
 * naming one policy cannot silently disagree on the size of a bucket they share. Thread-safe (JAX-RS
 * runtimes may configure resource methods concurrently).
 */
public final class MethodPolicies {

    private record Seen(PolicyConfig policy, String where) {
    }

    private final ConfigSource config;
    private final Map<String, Seen> seen = new HashMap<>();

    /** @param config the application's settings, without any inline default */
    public MethodPolicies(ConfigSource config) {
        this.config = config;
    }

    /** Whether {@code method} is limited at all, checked without reading any configuration. */
    public static boolean annotated(Class<?> resourceClass, Method method) {
        return !classLevel(resourceClass).isEmpty() || !methodLevel(resourceClass, method).isEmpty();
    }

    /**
     * The enabled policies limiting {@code method} when it is invoked on {@code resourceClass}, in
     * declaration order (class first); empty when it carries no {@link RateLimited}.
     *
     * @throws SluiceConfigException naming the method and the policy when a policy is unknown and has no
     *                               inline rate, when a value is bad, when one method names a policy twice,
     *                               or when two methods give one policy different bandwidths
     */
    public List<PolicyConfig> resolve(Class<?> resourceClass, Method method) {
        String where = describe(resourceClass, method);
        Map<String, RateLimited> chosen = new LinkedHashMap<>();
        for (RateLimited annotation : classLevel(resourceClass)) {
            chosen.putIfAbsent(annotation.value(), annotation);
        }
        Set<String> onMethod = new LinkedHashSet<>();
        for (RateLimited annotation : methodLevel(resourceClass, method)) {
            if (!onMethod.add(annotation.value())) {
                String key = "sluice.limit." + annotation.value() + ".rate";
                throw ConfigProblems.onAnnotation(key, "@RateLimited(\"" + annotation.value() + "\")",
                        "appears twice on " + where,
                        "each policy at most once per method (a request is charged once per policy)");
            }
            chosen.put(annotation.value(), annotation);
        }
        List<PolicyConfig> policies = new ArrayList<>(chosen.size());
        for (RateLimited annotation : chosen.values()) {
            PolicyConfig policy = policy(annotation, where);
            if (policy.enabled()) {
                policies.add(policy);
            }
        }
        return List.copyOf(policies);
    }

    private PolicyConfig policy(RateLimited annotation, String where) {
        String name = annotation.value();
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

    private static List<RateLimited> classLevel(Class<?> resourceClass) {
        List<RateLimited> found = new ArrayList<>(List.of(resourceClass.getAnnotationsByType(RateLimited.class)));
        for (Class<?> c = resourceClass; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Class<?> i : c.getInterfaces()) {
                found.addAll(List.of(i.getAnnotationsByType(RateLimited.class)));
            }
        }
        return found;
    }

    private static List<RateLimited> methodLevel(Class<?> resourceClass, Method method) {
        RateLimited[] own = method.getAnnotationsByType(RateLimited.class);
        if (own.length > 0) {
            return List.of(own);
        }
        for (Class<?> c = resourceClass; c != null && c != Object.class; c = c.getSuperclass()) {
            RateLimited[] found = declaredOn(c, method);
            if (found.length > 0) {
                return List.of(found);
            }
            for (Class<?> i : c.getInterfaces()) {
                found = declaredOn(i, method);
                if (found.length > 0) {
                    return List.of(found);
                }
            }
        }
        return List.of();
    }

    private static RateLimited[] declaredOn(Class<?> type, Method method) {
        try {
            return type.getDeclaredMethod(method.getName(), method.getParameterTypes())
                    .getAnnotationsByType(RateLimited.class);
        } catch (NoSuchMethodException e) {
            return new RateLimited[0];
        }
    }

    /** {@code com.example.SearchResource#search(String, int)}, as messages name a method. */
    static String describe(Class<?> resourceClass, Method method) {
        StringBuilder sb = new StringBuilder(resourceClass.getName()).append('#').append(method.getName()).append('(');
        Class<?>[] parameters = method.getParameterTypes();
        for (int i = 0; i < parameters.length; i++) {
            sb.append(i == 0 ? "" : ", ").append(parameters[i].getSimpleName());
        }
        return sb.append(')').toString();
    }
}
