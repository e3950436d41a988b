package dev.sluice.internal.config;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;

import static dev.sluice.internal.config.Rejections.rejects;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Every numeric key at both ends of its accepted range: the smallest and largest accepted values are read as
 * given, and the first value outside on either side fails the deployment naming the key and the value.
 */
class NumericKeyBoundsTest {

    /** The fastest rate there is, which refills the largest burst within the 100 years a bucket may take. */
    private static final Map<String, String> FAST = Map.of("sluice.limit.api.rate", "1000000/1s");
    /** The largest cost a policy accepts is its bucket's size, here the largest burst there is. */
    private static final Map<String, String> BIG_BUCKET = Map.of("sluice.limit.api.rate", "1000000/1s",
            "sluice.limit.api.burst", "999999999999999");
    private static final Map<String, String> NONE = Map.of();

    static Stream<Arguments> keys() {
        Function<SluiceConfig, Object> cost = c -> c.policy("api").orElseThrow().cost();
        Function<SluiceConfig, Object> burst = c -> c.policy("api").orElseThrow().bandwidths().get(0).capacity();
        Function<SluiceConfig, Object> timeout = c -> c.redis().timeout();
        Function<SluiceConfig, Object> maxWait = c -> c.redis().pool().maxWait();
        long maxMillis = Integer.MAX_VALUE;
        return Stream.of(
                arguments("sluice.ipv6-prefix", NONE, "32", 32, "128", 128, "31", "129",
                        (Function<SluiceConfig, Object>) SluiceConfig::ipv6Prefix),
                arguments("sluice.deny-cache.size", NONE, "0", 0, "10000000", 10_000_000, "-1", "10000001",
                        (Function<SluiceConfig, Object>) SluiceConfig::denyCacheSize),
                arguments("sluice.limit.api.cost", BIG_BUCKET, "1", 1L, "999999999999999", 999_999_999_999_999L, "0",
                        "1000000000000000", cost),
                arguments("sluice.limit.api.burst", FAST, "1", 1L, "999999999999999", 999_999_999_999_999L, "0",
                        "1000000000000000", burst),
                arguments("sluice.redis.pool.max-total", NONE, "1", 1, "2147483647", Integer.MAX_VALUE, "0",
                        "2147483648", (Function<SluiceConfig, Object>) c -> c.redis().pool().maxTotal()),
                arguments("sluice.redis.pool.max-idle", NONE, "0", 0, "2147483647", Integer.MAX_VALUE, "-1",
                        "2147483648", (Function<SluiceConfig, Object>) c -> c.redis().pool().maxIdle()),
                // min-idle's upper bound is max-idle (64 unless set).
                arguments("sluice.redis.pool.min-idle", NONE, "0", 0, "64", 64, "-1", "65",
                        (Function<SluiceConfig, Object>) c -> c.redis().pool().minIdle()),
                arguments("sluice.redis.timeout", NONE, "1ms", Duration.ofMillis(1), maxMillis + "ms",
                        Duration.ofMillis(maxMillis), "PT0.000999S", (maxMillis + 1) + "ms", timeout),
                arguments("sluice.redis.pool.max-wait", NONE, "1ms", Duration.ofMillis(1), maxMillis + "ms",
                        Duration.ofMillis(maxMillis), "PT0.000999S", (maxMillis + 1) + "ms", maxWait),
                arguments("sluice.lock.x.lease", NONE, "1ms", Duration.ofMillis(1), "3650d", Duration.ofDays(3650),
                        "PT0.0005S", "3651d", (Function<SluiceConfig, Object>) c -> c.lock("x").lease().orElseThrow()),
                arguments("sluice.semaphore.x.lease", NONE, "1ms", Duration.ofMillis(1), "3650d",
                        Duration.ofDays(3650), "PT0.000999S", "PT87600H0.001S",
                        (Function<SluiceConfig, Object>) c -> c.semaphore("x").lease().orElseThrow()),
                arguments("sluice.lock.x.max-wait", NONE, "0", Duration.ZERO, "3650d", Duration.ofDays(3650),
                        "-PT0.001S", "3651d",
                        (Function<SluiceConfig, Object>) c -> c.lock("x").maxWait().orElseThrow()),
                arguments("sluice.semaphore.x.max-wait", NONE, "0", Duration.ZERO, "3650d", Duration.ofDays(3650),
                        "-PT0.001S", "3651d",
                        (Function<SluiceConfig, Object>) c -> c.semaphore("x").maxWait().orElseThrow()),
                arguments("sluice.limit.api.concurrency-lease", Map.of("sluice.limit.api.concurrency", "1"), "100ms",
                        100L, "1d", 86_400_000L, "PT0.0999S", "86400001ms",
                        (Function<SluiceConfig, Object>) c -> c.policy("api").orElseThrow().concurrencyLeaseMillis()),
                arguments("sluice.limit.api.local-budget", Map.of("sluice.limit.api.rate", "1000/1s"), "1ms", 1L,
                        "1s", 1000L, "PT0.0005S", "1001ms",
                        (Function<SluiceConfig, Object>) c -> c.policy("api").orElseThrow().localBudgetMillis()),
                arguments("sluice.config.refresh", NONE, "100ms", Duration.ofMillis(100), "106751d",
                        Duration.ofDays(106751), "PT0.0999S", "106752d",
                        (Function<SluiceConfig, Object>) SluiceConfig::configRefresh));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("keys")
    void acceptsBothEndsOfTheRangeAndRejectsTheFirstValueOutside(String key, Map<String, String> context,
            String lowest, Object lowestRead, String highest, Object highestRead, String below, String above,
            Function<SluiceConfig, Object> read) {
        assertThat(read.apply(load(context, key, lowest))).isEqualTo(lowestRead);
        assertThat(read.apply(load(context, key, highest))).isEqualTo(highestRead);
        rejects(with(context, key, below), key, "\"" + below + "\"");
        rejects(with(context, key, above), key, "\"" + above + "\"");
    }

    @ParameterizedTest(name = "port {0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"0", "65536"})
    void rejectsAUriPortOutsideOneTo65535(String port) {
        String uri = "redis://h:" + port;
        rejects(Map.of("sluice.redis.uri", uri), "sluice.redis.uri", uri);
    }

    @ParameterizedTest(name = "port {0}")
    @org.junit.jupiter.params.provider.ValueSource(ints = {1, 65535})
    void acceptsAUriPortAtEitherEndOfOneTo65535(int port) {
        RedisSettings r = SluiceConfigLoader.load(ConfigSources.of(Map.of("sluice.redis.uri", "redis://h:" + port))).redis();
        assertThat(r.uri()).contains("redis://h:" + port + "/0");
    }

    private static SluiceConfig load(Map<String, String> context, String key, String value) {
        return SluiceConfigLoader.load(ConfigSources.of(with(context, key, value)));
    }

    private static Map<String, String> with(Map<String, String> context, String key, String value) {
        Map<String, String> values = new HashMap<>(context);
        values.put(key, value);
        return values;
    }
}
