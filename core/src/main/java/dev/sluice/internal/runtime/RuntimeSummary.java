package dev.sluice.internal.runtime;

import dev.sluice.internal.config.Bandwidth;
import dev.sluice.internal.config.Cidr;
import dev.sluice.internal.config.Exemptions;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.PolicyMode;
import dev.sluice.internal.config.SluiceConfig;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The one INFO line a runtime logs when it starts: where Redis is (from {@code RedisSettings.toString()},
 * which masks the password), the global settings and every policy, lock and semaphore override, so that an
 * operator can tell from the log what an application runs with. Stateless.
 */
final class RuntimeSummary {

    private RuntimeSummary() {
    }

    static String of(SluiceConfig config, String app) {
        StringBuilder line = new StringBuilder("Sluice started (app ").append(app).append("): ")
                .append(config.redis())
                .append(", key-prefix=").append(config.keyPrefix())
                .append(", on-redis-failure=").append(config.onRedisFailure().name().toLowerCase(java.util.Locale.ROOT))
                .append(", headers=").append(config.headers().name().toLowerCase(java.util.Locale.ROOT))
                .append(", trusted-proxies=").append(config.trustedProxies().size())
                .append(", forwarding-header=").append(config.forwardingHeader().name().toLowerCase(java.util.Locale.ROOT)
                        .replace('_', '-'))
                .append(", ipv6-prefix=").append(config.ipv6Prefix())
                .append(", deny-cache.size=").append(config.denyCacheSize())
                .append(", filter.enabled=").append(config.filterEnabled())
                .append(", config.refresh=").append(config.configRefresh().isZero() ? "0"
                        : duration(config.configRefresh()))
                .append(", policies=").append(new TreeMap<>(config.policies()).values().stream()
                        .map(RuntimeSummary::policy).collect(Collectors.joining(", ", "[", "]")))
                .append(", lock overrides=").append(new TreeMap<>(config.locks()).keySet())
                .append(", semaphore overrides=").append(new TreeMap<>(config.semaphores()).keySet())
                .append(", replaced scripts=").append(new TreeMap<>(config.scripts()).keySet())
                .append("; metrics in JMX under dev.sluice:app=").append(app);
        return line.toString();
    }

    /**
     * {@code api(100/1m burst 150, key=ip)}, with {@code mode=shadow} and {@code count=401} when set, so that a
     * policy that refuses nobody, or charges only some responses, shows as such; {@code disabled} when switched off.
     */
    static String policy(PolicyConfig policy) {
        String rates = policy.bandwidths().stream().map(RuntimeSummary::bandwidth).collect(Collectors.joining(","));
        String concurrency = policy.limitsConcurrency() ? (rates.isEmpty() ? "" : ", ") + "concurrency="
                + policy.concurrency() + " lease " + policy.concurrencyLeaseMillis() + "ms" : "";
        String budget = policy.hasLocalBudget() ? ", local-budget=" + policy.localBudgetMillis() + "ms (at most "
                + policy.localBudgetTokens() + " tokens per node)" : "";
        return policy.name() + "(" + rates + concurrency + budget + ", key=" + policy.key() + (policy.paths().isEmpty() ? ""
                : ", paths=" + policy.paths()) + (policy.mode() == PolicyMode.SHADOW ? ", mode=shadow" : "")
                + (policy.count().all() ? "" : ", count=" + policy.count()) + exempt(policy.exempt())
                + (policy.enabled() ? "" : ", disabled") + ")";
    }

    /** {@code , exempt=[10.0.0.0/8, principal:probe, role:ops]}, so the log shows who passes untouched. */
    private static String exempt(Exemptions exempt) {
        if (exempt.isEmpty()) {
            return "";
        }
        Stream<String> items = Stream.concat(exempt.networks().stream().map(Cidr::toString), Stream.concat(
                exempt.principals().stream().sorted().map(p -> "principal:" + p),
                exempt.roles().stream().sorted().map(r -> "role:" + r)));
        return ", exempt=" + items.collect(Collectors.joining(", ", "[", "]"));
    }

    static String bandwidth(Bandwidth b) {
        String text = b.tokens() + "/" + duration(b.period());
        return b.capacity() == b.tokens() ? text : text + " burst " + b.capacity();
    }

    private static String duration(Duration d) {
        Map<Long, String> units = Map.of(3_600_000L, "h", 60_000L, "m", 1_000L, "s");
        long millis = d.toMillis();
        for (long unit : new long[] {3_600_000L, 60_000L, 1_000L}) {
            if (millis % unit == 0) {
                return millis / unit + units.get(unit);
            }
        }
        return millis + "ms";
    }
}
