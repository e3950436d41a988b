package dev.sluice.internal.config;

import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * One rate-limit policy, {@code sluice.limit.<name>.*}, validated. Immutable.
 *
 * @param name       policy name
 * @param bandwidths all enforced atomically; the first carries the configured burst; empty only for a policy
 *                   that limits concurrency alone
 * @param key        how the bucket key is derived from a request
 * @param paths      servlet url-patterns the filter applies the policy to; empty = JAX-RS only
 * @param methods    upper-case HTTP methods it applies to; empty = all
 * @param cost       tokens one request takes, {@code 1 <= cost <= first bandwidth's capacity}
 * @param enabled    false switches the policy off
 * @param onRedisFailure what a request under this policy gets while Redis cannot be asked:
 *                   {@code sluice.limit.<name>.on-redis-failure}, else {@code sluice.on-redis-failure}
 * @param mode       {@code sluice.limit.<name>.mode}, else {@code sluice.mode}: whether it refuses requests
 * @param count      {@code sluice.limit.<name>.count}: which responses are charged
 * @param exempt     {@code sluice.limit.<name>.exempt}: clients neither charged nor limited
 * @param concurrency {@code sluice.limit.<name>.concurrency}: requests of one key in flight at once, 0 = no such
 *                   limit
 * @param concurrencyLeaseMillis {@code sluice.limit.<name>.concurrency-lease}: how long a request's permit is held
 *                   unless renewed (renewed every third of it while the request runs), so that the permits of a
 *                   node that died come back within it; {@link #DEFAULT_CONCURRENCY_LEASE_MILLIS} by default
 * @param localBudgetMillis {@code sluice.limit.<name>.local-budget}: the longest a node keeps tokens it reserved from
 *                   the bucket to admit requests of one key on its own, in milliseconds; 0 = no local budget (every
 *                   request decided by the store)
 */
public record PolicyConfig(
        String name,
        List<Bandwidth> bandwidths,
        KeySpec key,
        List<String> paths,
        Set<String> methods,
        long cost,
        boolean enabled,
        FailureMode onRedisFailure,
        PolicyMode mode,
        CountedStatuses count,
        Exemptions exempt,
        int concurrency,
        long concurrencyLeaseMillis,
        long localBudgetMillis) {

    /** The default lease of a concurrency limit's permit, {@code 30s}. */
    public static final long DEFAULT_CONCURRENCY_LEASE_MILLIS = 30_000;

    public PolicyConfig {
        bandwidths = List.copyOf(bandwidths);
        paths = List.copyOf(paths);
        methods = methods.stream().map(HttpMethods::upperCase).collect(Collectors.toUnmodifiableSet());
        Objects.requireNonNull(onRedisFailure, "onRedisFailure");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(count, "count");
        Objects.requireNonNull(exempt, "exempt");
        if (concurrency < 0 || (bandwidths.isEmpty() && concurrency == 0)) {
            throw new IllegalArgumentException("policy " + name + ": no bandwidth and concurrency " + concurrency);
        }
        if (concurrencyLeaseMillis < 1) {
            throw new IllegalArgumentException("policy " + name + ": concurrency lease " + concurrencyLeaseMillis);
        }
        if (localBudgetMillis < 0 || (localBudgetMillis > 0 && bandwidths.isEmpty())) {
            throw new IllegalArgumentException("policy " + name + ": local budget " + localBudgetMillis + " ms with "
                    + bandwidths.size() + " bandwidths");
        }
    }

    /** A policy without a local budget. */
    public PolicyConfig(String name, List<Bandwidth> bandwidths, KeySpec key, List<String> paths, Set<String> methods,
                        long cost, boolean enabled, FailureMode onRedisFailure, PolicyMode mode, CountedStatuses count,
                        Exemptions exempt, int concurrency, long concurrencyLeaseMillis) {
        this(name, bandwidths, key, paths, methods, cost, enabled, onRedisFailure, mode, count, exempt, concurrency,
                concurrencyLeaseMillis, 0);
    }

    /** A policy whose concurrency limit, if any, has the default lease. */
    public PolicyConfig(String name, List<Bandwidth> bandwidths, KeySpec key, List<String> paths, Set<String> methods,
                        long cost, boolean enabled, FailureMode onRedisFailure, PolicyMode mode, CountedStatuses count,
                        Exemptions exempt, int concurrency) {
        this(name, bandwidths, key, paths, methods, cost, enabled, onRedisFailure, mode, count, exempt, concurrency,
                DEFAULT_CONCURRENCY_LEASE_MILLIS);
    }

    /** An enforced policy charging every request, exempting nobody, without a concurrency limit. */
    public PolicyConfig(String name, List<Bandwidth> bandwidths, KeySpec key, List<String> paths, Set<String> methods,
                        long cost, boolean enabled, FailureMode onRedisFailure) {
        this(name, bandwidths, key, paths, methods, cost, enabled, onRedisFailure, PolicyMode.ENFORCE,
                CountedStatuses.ALL, Exemptions.NONE, 0);
    }

    /** A policy that fails open when Redis cannot be asked, the default of {@code sluice.on-redis-failure}. */
    public PolicyConfig(String name, List<Bandwidth> bandwidths, KeySpec key, List<String> paths, Set<String> methods,
                        long cost, boolean enabled) {
        this(name, bandwidths, key, paths, methods, cost, enabled, FailureMode.ALLOW);
    }

    /** This policy with another failure mode. */
    public PolicyConfig withOnRedisFailure(FailureMode mode) {
        return new PolicyConfig(name, bandwidths, key, paths, methods, cost, enabled, mode, this.mode, count, exempt,
                concurrency, concurrencyLeaseMillis, localBudgetMillis);
    }

    /** This policy in another mode. */
    public PolicyConfig withMode(PolicyMode mode) {
        return new PolicyConfig(name, bandwidths, key, paths, methods, cost, enabled, onRedisFailure, mode, count,
                exempt, concurrency, concurrencyLeaseMillis, localBudgetMillis);
    }

    /** This policy with a local budget of {@code millis} (0: none). */
    public PolicyConfig withLocalBudget(long millis) {
        return new PolicyConfig(name, bandwidths, key, paths, methods, cost, enabled, onRedisFailure, mode, count,
                exempt, concurrency, concurrencyLeaseMillis, millis);
    }

    /** Whether nodes admit requests of a key from tokens they reserved ({@code sluice.limit.<name>.local-budget}). */
    public boolean hasLocalBudget() {
        return localBudgetMillis > 0;
    }

    /**
     * The most tokens one node holds for one key under its local budget: what the policy's rate grants in one
     * {@link #localBudgetMillis()} (the fewest over its bandwidths), at least {@code cost}. The policy admits at most
     * this many tokens per node beyond its limit in any window; 0 without a local budget.
     */
    public long localBudgetTokens() {
        if (!hasLocalBudget()) {
            return 0;
        }
        long tokens = Long.MAX_VALUE;
        for (Bandwidth b : bandwidths) {
            tokens = Math.min(tokens, b.tokensIn(java.time.Duration.ofMillis(localBudgetMillis)));
        }
        return Math.max(cost, tokens);
    }

    /** Whether requests in flight are limited ({@code sluice.limit.<name>.concurrency}). */
    public boolean limitsConcurrency() {
        return concurrency > 0;
    }

    /** Whether requests are limited by rate (some policies limit concurrency alone). */
    public boolean limitsRate() {
        return !bandwidths.isEmpty();
    }

    /**
     * Whether the policy charges a request of this method: compared after ASCII upper-casing
     * ({@link HttpMethods#upperCase}), and {@code HEAD} wherever {@code GET} is listed, since servlets
     * ({@code doGet}) and JAX-RS ({@code @GET}) run the same code for it.
     */
    public boolean appliesTo(String method) {
        if (methods.isEmpty()) {
            return true;
        }
        String m = HttpMethods.upperCase(method);
        return methods.contains(m) || ("HEAD".equals(m) && methods.contains("GET"));
    }
}
