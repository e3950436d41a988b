package dev.sluice.internal.config;

import java.util.List;
import java.util.Objects;
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
 * @param onRedisFailure what a request under this policy gets while Redis cannot be asked:
 *                   {@code sluice.limit.<name>.on-redis-failure}, else {@code sluice.on-redis-failure}
 */
public record PolicyConfig(
        String name,
        List<Bandwidth> bandwidths,
        KeySpec key,
        List<String> paths,
        Set<String> methods,
        long cost,
        boolean enabled,
        FailureMode onRedisFailure) {

    public PolicyConfig {
        bandwidths = List.copyOf(bandwidths);
        paths = List.copyOf(paths);
        methods = Set.copyOf(methods);
        Objects.requireNonNull(onRedisFailure, "onRedisFailure");
    }

    /** A policy that fails open when Redis cannot be asked, the default of {@code sluice.on-redis-failure}. */
    public PolicyConfig(String name, List<Bandwidth> bandwidths, KeySpec key, List<String> paths, Set<String> methods,
                        long cost, boolean enabled) {
        this(name, bandwidths, key, paths, methods, cost, enabled, FailureMode.ALLOW);
    }

    /** This policy with another failure mode. */
    public PolicyConfig withOnRedisFailure(FailureMode mode) {
        return new PolicyConfig(name, bandwidths, key, paths, methods, cost, enabled, mode);
    }

    public boolean appliesTo(String method) {
        return methods.isEmpty() || methods.contains(method);
    }
}
