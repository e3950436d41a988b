package dev.sluice.internal.config;

import dev.sluice.SluiceConfigException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Builds the immutable {@link SluiceConfig} from a {@link ConfigSource}, once, at startup.
 *
 * <p>Every value is validated and the first bad one fails with {@link SluiceConfigException} naming the key,
 * the value and the accepted form. Every {@code sluice.*} name the source can list must be a known key, so
 * that a typo such as {@code sluice.redis.url} fails deployment instead of being silently ignored; the
 * message suggests the nearest known key and never shows the value (a misspelt password key would
 * otherwise print the password). Environment variables in upper case cannot be listed, so they are checked
 * only when a key they map to is read.
 *
 * <p>Stateless and thread-safe.
 */
public final class SluiceConfigLoader {

    public static final String KEY_PREFIX = "sluice.key-prefix";
    public static final String ON_REDIS_FAILURE = "sluice.on-redis-failure";
    public static final String MODE = "sluice.mode";
    public static final String DENY_CACHE_SIZE = "sluice.deny-cache.size";
    /** Default of {@value #DENY_CACHE_SIZE}. */
    public static final int DEFAULT_DENY_CACHE_SIZE = 10_000;
    public static final String CONFIG_REFRESH = "sluice.config.refresh";
    /** The shortest accepted {@value #CONFIG_REFRESH} other than 0: each refresh re-reads every policy key. */
    public static final Duration MIN_CONFIG_REFRESH = Duration.ofMillis(100);
    static final String CONFIG_REFRESH_FORM = "0 (off) or a duration of at least 100ms such as 30s, 5m or PT1M";
    public static final String TRUSTED_PROXIES = "sluice.trusted-proxies";
    public static final String FORWARDING_HEADER = "sluice.forwarding-header";
    public static final String IPV6_PREFIX = "sluice.ipv6-prefix";
    public static final String NAT64_PREFIXES = "sluice.nat64-prefixes";
    private static final String NAT64_FORM = "a comma-separated list of IPv6 /96 prefixes such as 2001:db8:64::/96"
            + " (RFC 6052 NAT64 prefixes, written as their network; 64:ff9b::/96 is always included)";
    public static final String HEADERS = "sluice.headers";
    public static final String FILTER_ENABLED = "sluice.filter.enabled";
    public static final String SCRIPT_PREFIX = "sluice.script.";
    public static final String LOCK_PREFIX = "sluice.lock.";
    public static final String SEMAPHORE_PREFIX = "sluice.semaphore.";

    /** Every key that is not part of a family ({@code sluice.limit.<policy>.*} and the like). */
    public static final List<String> TOP_LEVEL_KEYS;

    static {
        List<String> keys = new ArrayList<>(RedisSettingsLoader.KEYS);
        keys.addAll(List.of(KEY_PREFIX, ON_REDIS_FAILURE, TRUSTED_PROXIES, FORWARDING_HEADER, IPV6_PREFIX,
                NAT64_PREFIXES, HEADERS, FILTER_ENABLED, DENY_CACHE_SIZE, MODE, CONFIG_REFRESH));
        TOP_LEVEL_KEYS = List.copyOf(keys);
    }

    /** No braces (Cluster hash tags) and no colons (they separate the parts of every key). */
    static final Pattern KEY_PREFIX_FORM = Pattern.compile("[A-Za-z0-9_.-]{1,32}");
    private static final Pattern SCRIPT_NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    /**
     * The bundled Lua scripts an operator may replace with {@code sluice.script.<name>}; a test checks that each
     * has its file in {@code dev/sluice/scripts/} and that no file is missing from this list.
     */
    public static final List<String> SCRIPT_NAMES = List.of("gcra", "concurrency-release", "lock-acquire",
            "lock-extend", "lock-fence", "lock-release", "semaphore-acquire", "semaphore-extend", "semaphore-handover",
            "semaphore-release");

    private static final List<String> LOCK_ATTRIBUTES = List.of("lease", "max-wait");
    private static final List<String> SEMAPHORE_ATTRIBUTES = List.of("permits", "lease", "max-wait");

    private SluiceConfigLoader() {
    }

    /**
     * Reads and validates every {@code sluice.*} setting.
     *
     * @throws SluiceConfigException at the first unknown key or bad value
     */
    public static SluiceConfig load(ConfigSource source) {
        Names names = classify(source.names());
        RedisSettings redis = RedisSettingsLoader.load(source);

        String prefix = source.get(KEY_PREFIX).orElse(SluiceConfig.DEFAULT_KEY_PREFIX);
        if (!KEY_PREFIX_FORM.matcher(prefix).matches()) {
            throw ConfigProblems.invalid(KEY_PREFIX, prefix, "1 to 32 characters from A-Z a-z 0-9 _ . -"
                    + " (no braces or colons: they would change the structure of Redis keys)");
        }
        mode(source);
        List<Cidr> proxies = new ArrayList<>();
        source.get(TRUSTED_PROXIES).ifPresent(v -> Values.list(v).forEach(c -> proxies.add(Cidr.parse(TRUSTED_PROXIES, c))));

        Map<String, String> scripts = new TreeMap<>();
        for (String name : names.scripts) {
            source.get(name).ifPresent(v -> scripts.put(name.substring(SCRIPT_PREFIX.length()), scriptLocation(name, v)));
        }

        Map<String, PolicyConfig> policies = new LinkedHashMap<>();
        for (String policy : names.policies) {
            if (PolicyLoader.isPartial(policy, source)) {
                // Overrides of a @RateLimited policy's inline values, checked here and applied by JAX-RS.
                PolicyLoader.checkPartial(policy, source);
            } else {
                policies.put(policy, PolicyLoader.load(policy, source));
            }
        }
        Map<String, LockSettings> locks = new LinkedHashMap<>();
        for (String lock : names.locks) {
            locks.put(lock, lockSettings(LOCK_PREFIX + lock + ".", source, false));
        }
        Map<String, LockSettings> semaphores = new LinkedHashMap<>();
        for (String semaphore : names.semaphores) {
            semaphores.put(semaphore, lockSettings(SEMAPHORE_PREFIX + semaphore + ".", source, true));
        }

        return new SluiceConfig(
                redis,
                prefix,
                onRedisFailure(source),
                proxies,
                source.get(FORWARDING_HEADER).map(v -> ForwardingHeader.parse(FORWARDING_HEADER, v))
                        .orElse(ForwardingHeader.X_FORWARDED_FOR),
                source.get(IPV6_PREFIX).map(v -> (int) Values.whole(IPV6_PREFIX, v, 32, 128))
                        .orElse(SluiceConfig.DEFAULT_IPV6_PREFIX),
                nat64Prefixes(source),
                headerMode(source),
                source.get(FILTER_ENABLED).map(v -> Values.bool(FILTER_ENABLED, v)).orElse(true),
                scripts,
                policies,
                locks,
                semaphores,
                source.get(DENY_CACHE_SIZE).map(v -> (int) Values.whole(DENY_CACHE_SIZE, v, 0, 10_000_000)).orElse(DEFAULT_DENY_CACHE_SIZE),
                configRefresh(source));
    }

    /** {@value #NAT64_PREFIXES}: the well-known prefix, then each configured one (IPv6, exactly /96). */
    static List<Cidr> nat64Prefixes(ConfigSource source) {
        List<Cidr> prefixes = new ArrayList<>(List.of(SluiceConfig.WELL_KNOWN_NAT64_PREFIX));
        source.get(NAT64_PREFIXES).ifPresent(v -> {
            List<String> items = Values.list(v);
            if (items.isEmpty()) {
                throw ConfigProblems.invalid(NAT64_PREFIXES, v, NAT64_FORM);
            }
            for (String item : items) {
                Cidr prefix;
                try {
                    prefix = Cidr.parse(NAT64_PREFIXES, item);
                } catch (SluiceConfigException e) {
                    throw ConfigProblems.invalid(NAT64_PREFIXES, v, NAT64_FORM);
                }
                if (!prefix.isIpv6() || prefix.prefixLength() != 96 || !prefix.isNetworkOf(item)) {
                    throw ConfigProblems.invalid(NAT64_PREFIXES, v, "has \"" + item.strip() + "\"", NAT64_FORM);
                }
                if (!prefixes.contains(prefix)) {
                    prefixes.add(prefix);
                }
            }
        });
        return prefixes;
    }

    /** {@value #CONFIG_REFRESH}: how often the policy keys are read again; zero (the default) for never. */
    static Duration configRefresh(ConfigSource source) {
        return source.get(CONFIG_REFRESH).map(v -> {
            if (v.equals("0")) {
                return Duration.ZERO;
            }
            Duration d = Durations.tryParse(v).orElse(null);
            if (d != null && d.isZero()) {
                return Duration.ZERO;
            }
            if (d == null || d.compareTo(MIN_CONFIG_REFRESH) < 0) {
                throw ConfigProblems.invalid(CONFIG_REFRESH, v, CONFIG_REFRESH_FORM);
            }
            return d;
        }).orElse(Duration.ZERO);
    }

    /**
     * Reads one policy, for JAX-RS, which builds policies from {@code @RateLimited} when the configuration
     * does not define them.
     *
     * @throws SluiceConfigException when the name is not accepted, the policy has no rate, or a value is bad
     */
    public static PolicyConfig loadPolicy(String name, ConfigSource source) {
        return PolicyLoader.load(name, source);
    }

    /**
     * Whether {@code source} sets any attribute of the policy, environment variables included. A policy
     * that is defined this way must be complete: {@link #loadPolicy} then requires its rate.
     */
    public static boolean definesPolicy(String name, ConfigSource source) {
        return PolicyLoader.defines(name, source);
    }

    private static String scriptLocation(String key, String value) {
        boolean classpath = value.startsWith("classpath:/") && value.length() > "classpath:/".length();
        boolean file = value.startsWith("file:/") && value.length() > "file:/".length();
        if (!classpath && !file) {
            throw ConfigProblems.invalid(key, value, "classpath:/path/to/script.lua or file:/path/to/script.lua");
        }
        return value;
    }

    private static LockSettings lockSettings(String prefix, ConfigSource source, boolean semaphore) {
        String leaseKey = prefix + "lease";
        String maxWaitKey = prefix + "max-wait";
        String permitsKey = prefix + "permits";
        Optional<Duration> lease = source.get(leaseKey).map(v -> Durations.parseLease(leaseKey, v));
        Optional<Duration> maxWait = source.get(maxWaitKey).map(v -> Durations.parseWait(maxWaitKey, v));
        Optional<Integer> permits = semaphore
                ? source.get(permitsKey).map(v -> Values.wholeInt(permitsKey, v, 1))
                : Optional.empty();
        return new LockSettings(lease, maxWait, permits);
    }

    /** The names a source lists, sorted into families; unknown ones fail here. */
    private static Names classify(Set<String> all) {
        Names names = new Names();
        for (String name : new TreeSet<>(all)) {
            if (!name.startsWith(ConfigSources.PREFIX) || TOP_LEVEL_KEYS.contains(name)) {
                continue;
            }
            if (name.startsWith(PolicyLoader.PREFIX)) {
                String policy = PolicyLoader.policyOf(name).orElseThrow(() -> unknownKey(name));
                String attribute = name.substring(name.lastIndexOf('.') + 1);
                if (!PolicyLoader.ATTRIBUTES.contains(attribute)) {
                    throw PolicyLoader.unknownAttribute(name, attribute);
                }
                PolicyLoader.checkName(policy, name);
                names.policies.add(policy);
            } else if (name.startsWith(LOCK_PREFIX)) {
                names.locks.add(member(name, LOCK_PREFIX, LOCK_ATTRIBUTES));
            } else if (name.startsWith(SEMAPHORE_PREFIX)) {
                names.semaphores.add(member(name, SEMAPHORE_PREFIX, SEMAPHORE_ATTRIBUTES));
            } else if (name.startsWith(SCRIPT_PREFIX) && SCRIPT_NAME.matcher(name.substring(SCRIPT_PREFIX.length())).matches()) {
                String script = name.substring(SCRIPT_PREFIX.length());
                if (!SCRIPT_NAMES.contains(script)) {
                    String hint = KeySuggestions.nearest(script, SCRIPT_NAMES, List.of())
                            .map(n -> " (did you mean " + SCRIPT_PREFIX + n + "?)").orElse("");
                    throw ConfigProblems.invalid(name, script, "is not a bundled script" + hint
                            + ", so this replacement would never be used", SCRIPT_PREFIX
                            + "<name> with a name among " + String.join(", ", SCRIPT_NAMES));
                }
                names.scripts.add(name);
            } else {
                throw unknownKey(name);
            }
        }
        return names;
    }

    /**
     * The lock or semaphore name in {@code <prefix><name>.<attribute>}. Names may contain dots (the default
     * lock name is {@code <SimpleClassName>.<method>}), so the attribute is stripped from the end.
     */
    private static String member(String key, String prefix, List<String> attributes) {
        String rest = key.substring(prefix.length());
        for (String attribute : attributes) {
            String suffix = "." + attribute;
            if (rest.endsWith(suffix) && rest.length() > suffix.length()) {
                return rest.substring(0, rest.length() - suffix.length());
            }
        }
        throw ConfigProblems.unknown(key, "key", Optional.empty(), prefix + "<name>."
                + String.join(" or " + prefix + "<name>.", attributes));
    }

    private static SluiceConfigException unknownKey(String key) {
        return ConfigProblems.unknown(key, "key", KeySuggestions.nearest(key, TOP_LEVEL_KEYS,
                List.of(PolicyLoader.PREFIX, LOCK_PREFIX, SEMAPHORE_PREFIX, SCRIPT_PREFIX)), "one of "
                + String.join(", ", TOP_LEVEL_KEYS) + ", " + PolicyLoader.PREFIX + "<policy>.<attribute>, "
                + LOCK_PREFIX + "<name>.lease|max-wait, " + SEMAPHORE_PREFIX + "<name>.permits|lease|max-wait, "
                + SCRIPT_PREFIX + "<name>");
    }

    private static final class Names {
        final Set<String> policies = new TreeSet<>();
        final Set<String> locks = new TreeSet<>();
        final Set<String> semaphores = new TreeSet<>();
        final Set<String> scripts = new TreeSet<>();
    }

    /** {@code sluice.mode}: the mode of every policy that sets none of its own. */
    static PolicyMode mode(ConfigSource source) {
        return source.get(MODE).map(v -> Values.oneOf(MODE, v, PolicyMode.class)).orElse(PolicyMode.ENFORCE);
    }

    /** {@code sluice.on-redis-failure}: the failure mode of every policy that sets none of its own. */
    static FailureMode onRedisFailure(ConfigSource source) {
        return source.get(ON_REDIS_FAILURE).map(v -> Values.oneOf(ON_REDIS_FAILURE, v, FailureMode.class))
                .orElse(FailureMode.ALLOW);
    }

    /** {@code sluice.headers}. */
    public static HeaderMode headerMode(ConfigSource source) {
        return source.get(HEADERS).map(v -> Values.oneOf(HEADERS, v, HeaderMode.class)).orElse(HeaderMode.IETF);
    }
}
