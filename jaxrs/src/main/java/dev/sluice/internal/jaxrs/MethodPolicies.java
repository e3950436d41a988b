package dev.sluice.internal.jaxrs;

import dev.sluice.SluiceConfigException;
import dev.sluice.internal.http.AnnotatedPolicies;
import dev.sluice.internal.http.RateLimitGate;
import dev.sluice.jaxrs.RateLimited;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the {@link RateLimited} annotations of one resource method, which {@link AnnotatedPolicies} resolves
 * into validated policies, once, at deployment.
 *
 * <p>Which annotations count: every one on the resource class (superclasses through {@code @Inherited}, then
 * implemented interfaces), plus every one on the method; when the method declares none, the first overridden
 * declaration that does (JAX-RS reads its own annotations the same way). Order of precedence, and the check that
 * methods naming one policy agree on its buckets, are {@link AnnotatedPolicies}'.
 *
 * <p>One instance per deployed application, over one {@link AnnotatedPolicies}. Thread-safe (JAX-RS runtimes may
 * configure resource methods concurrently).
 */
public final class MethodPolicies {

    private final AnnotatedPolicies policies;

    /** @param policies the resolution over the application's settings */
    public MethodPolicies(AnnotatedPolicies policies) {
        this.policies = policies;
    }

    /** Whether {@code method} is limited at all, checked without reading any configuration. */
    public static boolean annotated(Class<?> resourceClass, Method method) {
        return !classAnnotations(resourceClass).isEmpty() || !methodAnnotations(resourceClass, method).isEmpty();
    }

    /**
     * The enabled policies limiting {@code method} when it is invoked on {@code resourceClass}, in
     * declaration order (class first); empty when it carries no {@link RateLimited}.
     *
     * @throws SluiceConfigException naming the method and the policy when a policy is unknown and has no
     *                               inline rate, when a value is bad, when one method names a policy twice,
     *                               or when two methods give one policy different bandwidths
     */
    public List<RateLimitGate.Policy> resolve(Class<?> resourceClass, Method method) {
        return resolve(describe(resourceClass, method), classLevel(resourceClass), methodLevel(resourceClass, method));
    }

    /** As {@link #resolve(Class, Method)}, from annotations already read. */
    List<RateLimitGate.Policy> resolve(String where, List<AnnotatedPolicies.Declared> classLevel,
            List<AnnotatedPolicies.Declared> methodLevel) {
        return policies.resolve(where, classLevel, methodLevel);
    }

    /** The annotations of {@code resourceClass}, as declared. */
    static List<AnnotatedPolicies.Declared> classLevel(Class<?> resourceClass) {
        return declared(classAnnotations(resourceClass));
    }

    /** The annotations of {@code method}, or of the first overridden declaration that has any. */
    static List<AnnotatedPolicies.Declared> methodLevel(Class<?> resourceClass, Method method) {
        return declared(methodAnnotations(resourceClass, method));
    }

    private static List<AnnotatedPolicies.Declared> declared(List<RateLimited> annotations) {
        List<AnnotatedPolicies.Declared> declared = new ArrayList<>(annotations.size());
        for (RateLimited a : annotations) {
            declared.add(new AnnotatedPolicies.Declared(a.value(), a.rate(), a.burst(), a.key(), a.cost()));
        }
        return List.copyOf(declared);
    }

    private static List<RateLimited> classAnnotations(Class<?> resourceClass) {
        List<RateLimited> found = new ArrayList<>(List.of(resourceClass.getAnnotationsByType(RateLimited.class)));
        for (Class<?> c = resourceClass; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Class<?> i : c.getInterfaces()) {
                found.addAll(List.of(i.getAnnotationsByType(RateLimited.class)));
            }
        }
        return found;
    }

    private static List<RateLimited> methodAnnotations(Class<?> resourceClass, Method method) {
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
