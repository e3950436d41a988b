package dev.sluice.internal.http;

import java.util.Collection;
import java.util.HashSet;
import java.util.Set;

/**
 * The request attribute that records which policies Sluice has already decided for a request, so that
 * no policy is charged twice: not by two servlet filter instances (the auto-registered one and one
 * declared in {@code web.xml} under another name), and not by the JAX-RS filter after the servlet filter.
 *
 * <p>The attribute {@value #ATTRIBUTE} holds an unmodifiable {@code java.util.Set<String>} of policy
 * names: a JDK type, so that it is understood even when the servlet filter and the JAX-RS module were
 * loaded by different class loaders (EAR {@code lib/} versus {@code WEB-INF/lib}). A policy is recorded
 * once it was decided, whether the store admitted, denied or could not be reached (in the last case a
 * second attempt would only add a second timeout). JAX-RS runtimes on a servlet container expose servlet
 * request attributes as {@code ContainerRequestContext} properties, which is how the JAX-RS filter reads
 * it. Stateless and thread-safe.
 */
public final class ChargedPolicies {

    /** Name of the request attribute (and JAX-RS request property). */
    public static final String ATTRIBUTE = "dev.sluice.charged-policies";

    private ChargedPolicies() {
    }

    /** Whether {@code policy} is recorded in the attribute value (tolerates absence and foreign values). */
    public static boolean contains(Object attributeValue, String policy) {
        return attributeValue instanceof Collection<?> charged && charged.contains(policy);
    }

    /** The attribute value after recording {@code policies}: a new unmodifiable set. */
    public static Set<String> with(Object attributeValue, Collection<String> policies) {
        if (policies.size() == 1 && !(attributeValue instanceof Collection<?>)) {
            return Set.of(policies.iterator().next()); // the usual request: one policy, nothing recorded before
        }
        Set<String> out = new HashSet<>(policies);
        if (attributeValue instanceof Collection<?> charged) {
            for (Object name : charged) {
                if (name instanceof String s) {
                    out.add(s);
                }
            }
        }
        return Set.copyOf(out);
    }
}
