package dev.sluice.internal.config;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Every {@code sluice.*} setting of one application (or one filter, whose init-params win), read once
 * at startup and validated. Immutable and thread-safe.
 *
 * @param redis          Redis connection settings
 * @param keyPrefix      prefix of every Redis key, default {@code sluice}
 * @param onRedisFailure rate-limit behaviour when Redis is unreachable, default {@link FailureMode#ALLOW}
 * @param trustedProxies CIDRs whose forwarding headers are believed, default none
 * @param forwardingHeader the one header read from a trusted proxy, default {@link ForwardingHeader#X_FORWARDED_FOR}
 * @param ipv6Prefix     prefix length by which IPv6 clients are keyed, 32..128, default {@value #DEFAULT_IPV6_PREFIX}
 * @param nat64Prefixes  IPv6 /96 prefixes whose addresses embed an IPv4 client (RFC 6052): the well-known
 *                       {@code 64:ff9b::/96} first, then {@code sluice.nat64-prefixes}
 * @param headers        which response headers to write, default {@link HeaderMode#IETF}
 * @param filterEnabled  whether the auto-registered servlet filter is active, default true
 * @param scripts        {@code sluice.script.<name>} overrides: script name to {@code classpath:} or {@code file:} location
 * @param policies       rate-limit policies by name (disabled ones included, with {@code enabled=false})
 * @param locks          {@code sluice.lock.<name>.*} overrides by lock name
 * @param semaphores     {@code sluice.semaphore.<name>.*} overrides by semaphore name
 * @param denyCacheSize  {@code sluice.deny-cache.size}: refused buckets a node remembers, 0 = none
 * @param configRefresh  {@code sluice.config.refresh}: how often the policy keys are read again, zero = never
 */
public record SluiceConfig(
        RedisSettings redis,
        String keyPrefix,
        FailureMode onRedisFailure,
        List<Cidr> trustedProxies,
        ForwardingHeader forwardingHeader,
        int ipv6Prefix,
        List<Cidr> nat64Prefixes,
        HeaderMode headers,
        boolean filterEnabled,
        Map<String, String> scripts,
        Map<String, PolicyConfig> policies,
        Map<String, LockSettings> locks,
        Map<String, LockSettings> semaphores,
        int denyCacheSize,
        Duration configRefresh) {

    public static final String DEFAULT_KEY_PREFIX = "sluice";

    /** The usual size of one customer's IPv6 network: one client, however many addresses it rotates through. */
    public static final int DEFAULT_IPV6_PREFIX = 64;

    /** RFC 6052's well-known prefix: {@code 64:ff9b::192.0.2.1} is the IPv4 client 192.0.2.1 behind NAT64. */
    public static final Cidr WELL_KNOWN_NAT64_PREFIX = Cidr.parse("sluice.nat64-prefixes", "64:ff9b::/96");

    public SluiceConfig {
        trustedProxies = List.copyOf(trustedProxies);
        nat64Prefixes = List.copyOf(nat64Prefixes);
        scripts = Map.copyOf(scripts);
        policies = Map.copyOf(policies);
        locks = Map.copyOf(locks);
        semaphores = Map.copyOf(semaphores);
        Objects.requireNonNull(configRefresh, "configRefresh");
    }

    public Optional<PolicyConfig> policy(String name) {
        return Optional.ofNullable(policies.get(name));
    }

    public LockSettings lock(String name) {
        return locks.getOrDefault(name, LockSettings.NONE);
    }

    public LockSettings semaphore(String name) {
        return semaphores.getOrDefault(name, LockSettings.NONE);
    }
}
