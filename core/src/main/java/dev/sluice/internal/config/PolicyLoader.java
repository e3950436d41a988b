package dev.sluice.internal.config;

import dev.sluice.SluiceConfigException;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads and validates one rate-limit policy, {@code sluice.limit.<policy>.*}. Stateless and thread-safe.
 */
final class PolicyLoader {

    static final String PREFIX = "sluice.limit.";

    static final List<String> ATTRIBUTES = List.of("rate", "burst", "key", "paths", "methods", "cost", "enabled",
            "on-redis-failure", "mode", "count", "exempt", "concurrency", "concurrency-lease", "local-budget");

    /** Most requests of one key a concurrency limit lets run at once. */
    static final int MAX_CONCURRENCY = 1_000_000;

    /** Bounds of {@code concurrency-lease}: renewals every third of it must stay cheap, and a day is plenty. */
    static final long MIN_CONCURRENCY_LEASE_MILLIS = 100;
    static final long MAX_CONCURRENCY_LEASE_MILLIS = 86_400_000;
    private static final String CONCURRENCY_LEASE_FORM = "a duration from 100ms to 1d, such as 30s";

    /**
     * Bounds of {@code local-budget}: the age of tokens a node holds is counted in whole milliseconds, and they are
     * meant to be short-lived (a second of the rate per node at most beyond the limit).
     */
    static final long MAX_LOCAL_BUDGET_MILLIS = 1000;
    private static final String LOCAL_BUDGET_FORM = "0 (no local budget) or a duration from 1ms to 1s, such as 50ms";

    /** Policy names go into Redis keys, so no braces (Cluster hash tags) and no colons (key structure). */
    static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    static final String KEY_FORMS = "ip, principal, header:<Name>, query:<name>, path, path-param:<name>,"
            + " global or bean:<CDI name of a KeyResolver>";

    /** RFC 9110 token: what a header name and an HTTP method are made of. */
    private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");
    /** JAX-RS template parameter names: {@code [\w][\w.-]*}. */
    private static final Pattern PARAM = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]*");
    /** CDI bean names as {@code @Named} allows them in practice (EL identifiers, dotted). */
    private static final Pattern BEAN = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$.-]*");
    private static final Pattern QUERY = Pattern.compile("[^\\s&=#]+");
    private static final Pattern PATH_CHARS = Pattern.compile("[^\\s*?#]*");

    private static final String PATHS_EXPECTED = "comma-separated servlet url-patterns: /exact, /prefix/*,"
            + " *.extension or /, such as /api/*,/login";

    private PolicyLoader() {
    }

    static String key(String policy, String attribute) {
        return PREFIX + policy + "." + attribute;
    }

    /** Whether any of the policy's attributes has a value. */
    static boolean defines(String name, ConfigSource source) {
        return ATTRIBUTES.stream().anyMatch(a -> source.get(key(name, a)).isPresent());
    }

    static PolicyConfig load(String name, ConfigSource source) {
        checkName(name, key(name, "rate"));
        checkAttributes(name, source);
        String rateKey = key(name, "rate");
        String concurrencyKey = key(name, "concurrency");
        int concurrency = source.get(concurrencyKey).map(v -> concurrency(concurrencyKey, v)).orElse(0);
        Optional<String> rate = source.get(rateKey);
        if (rate.isEmpty() && concurrency == 0) {
            throw ConfigProblems.absent(rateKey, " but policy \"" + name + "\" is configured"
                    + setAttributes(name, source), "a rate <tokens>/<duration> such as 100/1m or 10/1s, or a"
                    + " concurrency limit " + concurrencyKey + "=<N>, for every policy");
        }

        String burstKey = key(name, "burst");
        OptionalLong burst = source.get(burstKey)
                .map(v -> OptionalLong.of(burst(burstKey, v)))
                .orElse(OptionalLong.empty());
        if (rate.isEmpty() && burst.isPresent()) {
            throw ConfigProblems.conflict(burstKey, source.get(burstKey).orElseThrow(), "sizes a rate's bucket, but",
                    concurrencyKey, source.get(concurrencyKey).orElseThrow(), " is the policy's only limit",
                    "a burst only beside " + rateKey);
        }
        List<Bandwidth> bandwidths = rate.isEmpty() ? List.of() : Rates.parse(rateKey, rate.get(), burst);

        String keyKey = key(name, "key");
        KeySpec keySpec = source.get(keyKey).map(v -> keySpec(keyKey, v)).orElse(KeySpec.IP);

        String pathsKey = key(name, "paths");
        List<String> paths = source.get(pathsKey).map(v -> paths(pathsKey, v)).orElse(List.of());
        if (keySpec.type() == KeySpec.Type.PATH_PARAM && !paths.isEmpty()) {
            throw ConfigProblems.conflict(keyKey, keySpec.toString(), "needs JAX-RS path parameters, but", pathsKey,
                    source.get(pathsKey).orElseThrow(), " hands the policy to the servlet filter, which has none",
                    "a key other than path-param: or no paths");
        }

        String methodsKey = key(name, "methods");
        Set<String> methods = source.get(methodsKey).map(v -> methods(methodsKey, v)).orElse(Set.of());

        String costKey = key(name, "cost");
        long cost = source.get(costKey).map(v -> Values.whole(costKey, v, 1, Long.MAX_VALUE)).orElse(1L);
        checkCost(name, source, bandwidths, cost);

        String enabledKey = key(name, "enabled");
        boolean enabled = source.get(enabledKey).map(v -> Values.bool(enabledKey, v)).orElse(true);

        String failureKey = key(name, "on-redis-failure");
        FailureMode onRedisFailure = source.get(failureKey)
                .map(v -> Values.oneOf(failureKey, v, FailureMode.class))
                .orElseGet(() -> SluiceConfigLoader.onRedisFailure(source));

        String modeKey = key(name, "mode");
        PolicyMode mode = source.get(modeKey).map(v -> Values.oneOf(modeKey, v, PolicyMode.class))
                .orElseGet(() -> SluiceConfigLoader.mode(source));

        String countKey = key(name, "count");
        CountedStatuses count = source.get(countKey).map(v -> CountedStatuses.parse(countKey, v))
                .orElse(CountedStatuses.ALL);
        if (!count.all() && rate.isEmpty()) {
            throw ConfigProblems.conflict(countKey, source.get(countKey).orElseThrow(), "charges a rate after the"
                    + " response, but", concurrencyKey, source.get(concurrencyKey).orElseThrow(),
                    " is the policy's only limit", "count only beside " + rateKey);
        }

        String exemptKey = key(name, "exempt");
        Exemptions exempt = source.get(exemptKey).map(v -> Exemptions.parse(exemptKey, v)).orElse(Exemptions.NONE);

        String leaseKey = key(name, "concurrency-lease");
        long lease = source.get(leaseKey).map(v -> concurrencyLease(leaseKey, v))
                .orElse(PolicyConfig.DEFAULT_CONCURRENCY_LEASE_MILLIS);
        if (concurrency == 0 && source.get(leaseKey).isPresent()) {
            throw ConfigProblems.invalid(leaseKey, source.get(leaseKey).get(), "is the lease of a concurrency limit's"
                    + " permits, but " + concurrencyKey + " is not set", "a concurrency-lease only beside "
                    + concurrencyKey + "=<N>");
        }

        String budgetKey = key(name, "local-budget");
        long localBudget = source.get(budgetKey).map(v -> localBudget(budgetKey, v)).orElse(0L);
        if (localBudget > 0 && rate.isEmpty()) {
            throw ConfigProblems.conflict(budgetKey, source.get(budgetKey).orElseThrow(), "reserves a rate's tokens,"
                    + " but", concurrencyKey, source.get(concurrencyKey).orElseThrow(), " is the policy's only limit",
                    "a local-budget only beside " + rateKey);
        }
        checkLocalBudget(budgetKey, source, rateKey, bandwidths, localBudget);

        return new PolicyConfig(name, bandwidths, keySpec, paths, methods, cost, enabled, onRedisFailure, mode, count,
                exempt, concurrency, lease, localBudget);
    }

    /** {@code local-budget} in milliseconds: 0 for none. */
    static long localBudget(String key, String value) {
        if (value.trim().equals("0")) {
            return 0;
        }
        java.time.Duration age = Durations.tryParse(value.trim())
                .orElseThrow(() -> ConfigProblems.invalid(key, value, LOCAL_BUDGET_FORM));
        if (age.isNegative() || age.toNanos() % 1_000_000 != 0
                || age.compareTo(java.time.Duration.ofMillis(MAX_LOCAL_BUDGET_MILLIS)) > 0) {
            throw ConfigProblems.invalid(key, value, LOCAL_BUDGET_FORM);
        }
        return age.toMillis();
    }

    /**
     * A node holds at most what the rate grants in one local-budget age; longer than a bucket takes to refill, that
     * would be more than the whole bucket, so such an age is refused rather than capped.
     */
    private static void checkLocalBudget(String key, ConfigSource source, String rateKey, List<Bandwidth> bandwidths,
                                         long millis) {
        for (int i = 0; i < bandwidths.size() && millis > 0; i++) {
            Bandwidth b = bandwidths.get(i);
            java.math.BigInteger refill = b.refillMicros();
            if (refill.compareTo(java.math.BigInteger.valueOf(millis * 1000)) < 0) {
                throw ConfigProblems.invalid(key, source.get(key).orElseThrow(), "is longer than bandwidth " + (i + 1)
                        + " of " + rateKey + " \"" + source.get(rateKey).orElseThrow() + "\" takes to refill its bucket of "
                        + b.capacity() + " tokens (" + refill + " µs), so one node could hold more than the whole"
                        + " bucket", "0 (no local budget) or a duration from 1ms to at most that refill time (and 1s)");
            }
        }
    }

    private static int concurrency(String key, String value) {
        return (int) Values.whole(key, value, 1, MAX_CONCURRENCY);
    }

    static long concurrencyLease(String key, String value) {
        java.time.Duration lease = Durations.tryParse(value.trim())
                .orElseThrow(() -> ConfigProblems.invalid(key, value, CONCURRENCY_LEASE_FORM));
        if (lease.compareTo(java.time.Duration.ofMillis(MIN_CONCURRENCY_LEASE_MILLIS)) < 0
                || lease.compareTo(java.time.Duration.ofMillis(MAX_CONCURRENCY_LEASE_MILLIS)) > 0) {
            throw ConfigProblems.invalid(key, value, CONCURRENCY_LEASE_FORM);
        }
        return lease.toMillis();
    }

    /**
     * Whether the policy sets neither {@code rate} nor {@code paths}: it then only overrides single attributes
     * of a JAX-RS {@code @RateLimited} policy whose other values (its rate among them) come from the
     * annotation. A policy with {@code paths} is the servlet filter's and needs a rate of its own.
     */
    static boolean isPartial(String name, ConfigSource source) {
        return source.get(key(name, "rate")).isEmpty() && source.get(key(name, "paths")).isEmpty()
                && source.get(key(name, "concurrency")).isEmpty();
    }

    /** Validates what a partial policy sets, so that a bad value fails the deployment like any other. */
    static void checkPartial(String name, ConfigSource source) {
        checkName(name, key(name, "rate"));
        checkAttributes(name, source);
        String burstKey = key(name, "burst");
        source.get(burstKey).ifPresent(v -> Values.whole(burstKey, v, 1, Long.MAX_VALUE));
        String keyKey = key(name, "key");
        source.get(keyKey).ifPresent(v -> keySpec(keyKey, v));
        String methodsKey = key(name, "methods");
        source.get(methodsKey).ifPresent(v -> methods(methodsKey, v));
        String costKey = key(name, "cost");
        source.get(costKey).ifPresent(v -> Values.whole(costKey, v, 1, Long.MAX_VALUE));
        String enabledKey = key(name, "enabled");
        source.get(enabledKey).ifPresent(v -> Values.bool(enabledKey, v));
        String failureKey = key(name, "on-redis-failure");
        source.get(failureKey).ifPresent(v -> Values.oneOf(failureKey, v, FailureMode.class));
        String modeKey = key(name, "mode");
        source.get(modeKey).ifPresent(v -> Values.oneOf(modeKey, v, PolicyMode.class));
        String countKey = key(name, "count");
        source.get(countKey).ifPresent(v -> CountedStatuses.parse(countKey, v));
        String exemptKey = key(name, "exempt");
        source.get(exemptKey).ifPresent(v -> Exemptions.parse(exemptKey, v));
        String leaseKey = key(name, "concurrency-lease");
        source.get(leaseKey).ifPresent(v -> concurrencyLease(leaseKey, v));
        String budgetKey = key(name, "local-budget");
        source.get(budgetKey).ifPresent(v -> localBudget(budgetKey, v));
    }

    /** The RateLimit headers show the burst as a Structured Fields Integer, so it has at most 15 digits. */
    private static long burst(String key, String value) {
        long burst = Values.whole(key, value, 1, Long.MAX_VALUE);
        if (burst > Rates.MAX_COUNT) {
            throw ConfigProblems.invalid(key, value, "a whole number from 1 to " + Rates.MAX_COUNT + ", because"
                    + " the RateLimit headers carry it as a Structured Fields Integer, which has at most 15 digits");
        }
        return burst;
    }

    static void checkName(String name, String key) {
        if (!NAME.matcher(name).matches()) {
            throw ConfigProblems.invalid(key, name, "is not an accepted policy name",
                    "1 to 64 characters from A-Z a-z 0-9 _ - (the name is part of Redis keys)");
        }
    }

    /** Catches typos such as {@code sluice.limit.api.rat} among the names the source can list. */
    private static void checkAttributes(String name, ConfigSource source) {
        String prefix = PREFIX + name + ".";
        for (String n : source.names()) {
            if (n.startsWith(prefix) && !ATTRIBUTES.contains(n.substring(prefix.length()))) {
                throw unknownAttribute(n, n.substring(prefix.length()));
            }
        }
    }

    static SluiceConfigException unknownAttribute(String key, String attribute) {
        return ConfigProblems.unknown(key, "policy attribute \"" + attribute + "\"",
                KeySuggestions.nearest(attribute, ATTRIBUTES, List.of()),
                PREFIX + "<policy>.<attribute> with an attribute among " + String.join(", ", ATTRIBUTES));
    }

    private static String setAttributes(String name, ConfigSource source) {
        List<String> set = new ArrayList<>();
        for (String a : ATTRIBUTES) {
            if (source.get(key(name, a)).isPresent()) {
                set.add(key(name, a));
            }
        }
        return set.isEmpty() ? "" : " (by " + String.join(", ", set) + ")";
    }

    private static void checkCost(String name, ConfigSource source, List<Bandwidth> bandwidths, long cost) {
        String costKey = key(name, "cost");
        String burstKey = key(name, "burst");
        String rateKey = key(name, "rate");
        for (int i = 0; i < bandwidths.size(); i++) {
            Bandwidth b = bandwidths.get(i);
            if (cost <= b.capacity()) {
                continue;
            }
            String why;
            if (i == 0 && source.get(burstKey).isPresent()) {
                why = "the burst " + burstKey + " \"" + source.get(burstKey).orElseThrow() + "\"";
            } else {
                why = "the " + b.capacity() + " tokens that bandwidth " + (i + 1) + " of " + rateKey + " \""
                        + source.get(rateKey).orElseThrow() + "\" can hold"
                        + (i == 0 ? " (raise " + burstKey + ")" : "");
            }
            throw ConfigProblems.invalid(costKey, Long.toString(cost), "is more than " + why
                    + ", so no request could ever pass (burst smaller than cost)", "a cost from 1 to " + b.capacity());
        }
    }

    static KeySpec keySpec(String key, String value) {
        int colon = value.indexOf(':');
        String kind = (colon < 0 ? value : value.substring(0, colon)).trim().toLowerCase(Locale.ROOT);
        String arg = colon < 0 ? null : value.substring(colon + 1).trim();
        KeySpec spec = switch (kind) {
            case "ip" -> simple(KeySpec.Type.IP, arg);
            case "principal" -> simple(KeySpec.Type.PRINCIPAL, arg);
            case "path" -> simple(KeySpec.Type.PATH, arg);
            case "global" -> simple(KeySpec.Type.GLOBAL, arg);
            case "header" -> withArg(KeySpec.Type.HEADER, arg, TOKEN);
            case "query" -> withArg(KeySpec.Type.QUERY, arg, QUERY);
            case "path-param" -> withArg(KeySpec.Type.PATH_PARAM, arg, PARAM);
            case "bean" -> withArg(KeySpec.Type.BEAN, arg, BEAN);
            default -> null;
        };
        if (spec == null) {
            throw ConfigProblems.invalid(key, value, "is an unknown key resolver", "one of " + KEY_FORMS);
        }
        return spec;
    }

    private static KeySpec simple(KeySpec.Type type, String arg) {
        return arg == null ? new KeySpec(type, "") : null;
    }

    private static KeySpec withArg(KeySpec.Type type, String arg, Pattern form) {
        return arg != null && form.matcher(arg).matches() ? new KeySpec(type, arg) : null;
    }

    static List<String> paths(String key, String value) {
        Set<String> out = new LinkedHashSet<>();
        for (String p : Values.list(value)) {
            if (!isUrlPattern(p)) {
                throw ConfigProblems.invalid(key, value, "has \"" + p + "\", which is not a servlet url-pattern",
                        PATHS_EXPECTED);
            }
            out.add(p);
        }
        if (out.isEmpty()) {
            throw ConfigProblems.invalid(key, value, PATHS_EXPECTED);
        }
        return List.copyOf(out);
    }

    /** Servlet 5 section 12.2: the four forms a url-pattern can take. */
    private static boolean isUrlPattern(String p) {
        if (p.startsWith("*.")) {
            String ext = p.substring(2);
            return !ext.isEmpty() && ext.indexOf('/') < 0 && PATH_CHARS.matcher(ext).matches();
        }
        if (!p.startsWith("/")) {
            return false;
        }
        String body = p.endsWith("/*") ? p.substring(0, p.length() - 2) : p;
        return PATH_CHARS.matcher(body).matches();
    }

    static Set<String> methods(String key, String value) {
        Set<String> out = new LinkedHashSet<>();
        for (String m : Values.list(value)) {
            if (!TOKEN.matcher(m).matches()) {
                throw ConfigProblems.invalid(key, value, "has \"" + m + "\", which is not an HTTP method",
                        "comma-separated methods such as GET,POST");
            }
            out.add(m.toUpperCase(Locale.ROOT));
        }
        if (out.isEmpty()) {
            throw ConfigProblems.invalid(key, value, "comma-separated HTTP methods such as GET,POST");
        }
        return out;
    }

    static Optional<String> policyOf(String configName) {
        if (!configName.startsWith(PREFIX)) {
            return Optional.empty();
        }
        String rest = configName.substring(PREFIX.length());
        int dot = rest.lastIndexOf('.');
        return dot <= 0 ? Optional.empty() : Optional.of(rest.substring(0, dot));
    }
}
