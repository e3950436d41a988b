package dev.sluice.internal.config;

import java.util.List;
import java.util.Set;

/**
 * One rate-limit policy, {@code sluice.limit.<name>.*}, validated. Immutable.
 *
 * @param name       policy name
 * @param bandwidths one or more, all enforced atomically; the first carries the configured burst
 * @param key        how the bucket key is derived from a request
 * @param paths      servlet url-patterns the filter applies the policy to; empty = JAX-RS only
 * @param methods    upper-case HTTP methods it applies to; empty = all
 * @param cost       tokens one request takes, {@code 1 <= cost <= first bandwidth's capacity}
 * @param enabled    false switches the policy off
 */
public record PolicyConfig(
        String name,
        List<Bandwidth> bandwidths,
        KeySpec key,
        List<String> paths,
        Set<String> methods,
        long cost,
        boolean enabled) {

    public PolicyConfig {
        bandwidths = List.copyOf(bandwidths);
        paths = List.copyOf(paths);
        methods = Set.copyOf(methods);
    }

    public boolean appliesTo(String method) {
        return methods.isEmpty() || methods.contains(method);
    }
}
