package dev.sluice.internal.http;

import dev.sluice.SluiceConfigException;
import dev.sluice.internal.config.ConfigProblems;
import dev.sluice.internal.config.PolicyConfig;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * Finds the policies whose {@code sluice.limit.<policy>.paths} and {@code .methods} match a request,
 * using the servlet url-pattern rules (Servlet specification, section 12.2) against the path within the
 * application (servlet path + path info, decoded by the container) in its {@linkplain #canonical canonical form},
 * the form {@code key=path} counts by:
 * <ul>
 *   <li>{@code /prefix/*}: {@code /prefix} itself and everything below it; {@code /*} matches all;</li>
 *   <li>{@code *.ext}: paths whose last segment has the extension {@code ext} (after its last dot);</li>
 *   <li>{@code /}: every path (the default mapping, which catches what nothing else does; for a rate
 *       limit, which never competes with other mappings, that is everything);</li>
 *   <li>the empty string: the application root ({@code /}) only;</li>
 *   <li>any other string starting with {@code /}: that exact path, case-sensitively, in every spelling with
 *       the same canonical form ({@code /api/login} covers {@code /api/login/} and {@code /api/login;jsessionid=x},
 *       which servers route to the same resource).</li>
 * </ul>
 * Methods are compared as {@link PolicyConfig#appliesTo} does: case-insensitively, {@code HEAD} with
 * {@code GET}.
 * Other forms ({@code /api/**}, {@code login}, {@code *.tar.gz}) are rejected at startup rather than
 * silently never matching. Disabled policies and policies without paths (JAX-RS only) never match.
 *
 * <p>What it answers for a matching policy is what it was built with: the policy's configuration, or what the
 * servlet filter decides with ({@link PathPolicies}), so that a request finds its candidates in one pass.
 *
 * <p>Built once from configuration; immutable and thread-safe.
 *
 * @param <T> what it answers for each matching policy
 */
public final class PathMatcher<T> {

    private record Rule<T>(PolicyConfig policy, T value, Set<String> exact, List<String> prefixes,
                           Set<String> extensions, boolean all) {

        boolean matches(String path) {
            if (all || exact.contains(path)) {
                return true;
            }
            for (String prefix : prefixes) {
                if (path.startsWith(prefix) && (path.length() == prefix.length() || path.charAt(prefix.length()) == '/')) {
                    return true;
                }
            }
            if (!extensions.isEmpty()) {
                int slash = path.lastIndexOf('/');
                int dot = path.lastIndexOf('.');
                return dot > slash && extensions.contains(path.substring(dot + 1));
            }
            return false;
        }
    }

    private final List<Rule<T>> rules;

    private PathMatcher(List<Rule<T>> rules) {
        this.rules = rules;
    }

    /**
     * Compiles the paths of the enabled policies.
     *
     * @throws SluiceConfigException naming {@code sluice.limit.<policy>.paths} when a pattern is not a
     *                               servlet url-pattern
     */
    public static PathMatcher<PolicyConfig> of(Collection<PolicyConfig> policies) {
        return of(policies, p -> p);
    }

    /**
     * Compiles the paths of the enabled policies, answering {@code values} of each.
     *
     * @throws SluiceConfigException naming {@code sluice.limit.<policy>.paths} when a pattern is not a
     *                               servlet url-pattern, or what {@code values} throws
     */
    public static <T> PathMatcher<T> of(Collection<PolicyConfig> policies, Function<PolicyConfig, T> values) {
        List<Rule<PolicyConfig>> compiled = new ArrayList<>();
        policies.stream()
                .filter(p -> p.enabled() && !p.paths().isEmpty())
                .sorted(Comparator.comparing(PolicyConfig::name))
                .forEach(p -> compiled.add(compile(p)));
        // every pattern is checked before any value is made of a policy, so a bad path is reported first
        List<Rule<T>> rules = new ArrayList<>(compiled.size());
        for (Rule<PolicyConfig> r : compiled) {
            rules.add(new Rule<>(r.policy, values.apply(r.policy), r.exact, r.prefixes, r.extensions, r.all));
        }
        return new PathMatcher<>(List.copyOf(rules));
    }

    private static Rule<PolicyConfig> compile(PolicyConfig policy) {
        Set<String> exact = new HashSet<>();
        List<String> prefixes = new ArrayList<>();
        Set<String> extensions = new HashSet<>();
        boolean all = false;
        for (String raw : policy.paths()) {
            String pattern = raw.strip();
            if (pattern.isEmpty()) {
                exact.add("/");
            } else if (pattern.equals("/") || pattern.equals("/*")) {
                all = true;
            } else if (pattern.startsWith("*.")) {
                String extension = pattern.substring(2);
                if (extension.isEmpty() || extension.contains(".") || extension.contains("/") || extension.contains("*")) {
                    throw invalid(policy, raw);
                }
                extensions.add(extension);
            } else if (pattern.startsWith("/") && pattern.endsWith("/*")) {
                String prefix = pattern.substring(0, pattern.length() - 2);
                if (prefix.contains("*")) {
                    throw invalid(policy, raw);
                }
                prefixes.add(canonical(prefix));
            } else if (pattern.startsWith("/") && !pattern.contains("*")) {
                exact.add(canonical(pattern)); // as requests are compared: /login/ is /login
            } else {
                throw invalid(policy, raw);
            }
        }
        return new Rule<>(policy, policy, Set.copyOf(exact), List.copyOf(prefixes), Set.copyOf(extensions), all);
    }

    private static SluiceConfigException invalid(PolicyConfig policy, String pattern) {
        return ConfigProblems.invalid("sluice.limit." + policy.name() + ".paths", pattern,
                "servlet url-patterns such as /login (exact), /api/* (prefix), *.jsp (extension) or / (all)");
    }

    /**
     * The enabled policies that apply to this request, ordered by name; empty (and allocation-free)
     * when none does.
     *
     * @param method HTTP method as sent, in any case
     * @param path   path within the application, starting with {@code /}
     */
    public List<T> matching(String method, String path) {
        List<T> matched = null;
        String canonical = rules.isEmpty() ? path : canonical(path);
        for (Rule<T> rule : rules) {
            if (rule.policy.appliesTo(method) && rule.matches(canonical)) {
                if (matched == null) {
                    matched = new ArrayList<>(2);
                }
                matched.add(rule.value);
            }
        }
        return matched == null ? List.of() : matched;
    }

    /**
     * The path as patterns match it and {@code key=path} counts it, so that one resource has one bucket: path
     * parameters ({@code ;jsessionid=...}) removed from every segment, empty and {@code .} segments dropped,
     * {@code ..} resolved (never above the root), no trailing {@code /} except for the root itself. Containers
     * hand over servlet paths decoded and mostly normalised already; JAX-RS paths may keep matrix parameters
     * and a trailing slash. Percent-encoding is left as the container decoded it: decoding again would read a
     * literal {@code %} as an escape.
     *
     * @param path a path within the application, starting with {@code /}
     */
    public static String canonical(String path) {
        if (isCanonical(path)) {
            return path;
        }
        List<String> segments = new ArrayList<>();
        for (String segment : path.split("/", -1)) {
            int parameters = segment.indexOf(';');
            String name = parameters < 0 ? segment : segment.substring(0, parameters);
            if (name.isEmpty() || name.equals(".")) {
                continue;
            }
            if (name.equals("..")) {
                if (!segments.isEmpty()) {
                    segments.remove(segments.size() - 1);
                }
                continue;
            }
            segments.add(name);
        }
        return "/" + String.join("/", segments);
    }

    /** The common case, without allocation: no parameters, no trailing slash, no empty or dot segment. */
    private static boolean isCanonical(String path) {
        return path.equals("/") || path.startsWith("/") && !path.endsWith("/") && path.indexOf(';') < 0
                && !path.contains("//") && !path.contains("/.");
    }

    /** Whether no policy applies to any path (the filter then never calls the store). */
    public boolean isEmpty() {
        return rules.isEmpty();
    }
}
