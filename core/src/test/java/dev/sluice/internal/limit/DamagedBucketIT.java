package dev.sluice.internal.limit;

import dev.sluice.RateLimitDecision;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.runtime.SluiceRuntime;
import dev.sluice.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.UnifiedJedis;

import java.time.Duration;
import java.util.Map;

import static dev.sluice.internal.limit.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A bucket key holding something Sluice did not write (another tool's hash or list, a word, an old release's
 * format) is read as an absent bucket, so the client gets a full bucket, and the next admitted request
 * overwrites it. It never makes every decision on that key fail.
 */
class DamagedBucketIT {

    private static final Duration HOUR = Duration.ofHours(1);

    @RegisterExtension
    static final RedisServer REDIS = RedisServer.standalone();

    private SluiceRuntime runtime;
    private RateLimitEngine engine;

    @BeforeEach
    void start() {
        runtime = SluiceRuntime.start(SluiceConfigLoader.load(ConfigSources.of(Map.of("sluice.redis.uri", REDIS.uri()))));
        engine = Engines.over(runtime.rateLimits().store(), "sluice");
    }

    @AfterEach
    void close() {
        runtime.close();
    }

    private static void damage(UnifiedJedis redis, String key, String kind) {
        redis.del(key);
        switch (kind) {
            case "hash" -> redis.hset(key, "tokens", "5");
            case "list" -> redis.rpush(key, "a", "b");
            case "set" -> redis.sadd(key, "a");
            case "zset" -> redis.zadd(key, 1, "a");
            case "word" -> redis.set(key, "full");
            case "half-number" -> redis.set(key, "12ab");
            case "nan" -> redis.set(key, "nan");
            case "fraction" -> redis.set(key, "1795000000000000.5");
            default -> throw new IllegalArgumentException(kind);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"hash", "list", "set", "zset", "word", "half-number", "nan", "fraction"})
    void aBucketOfOneBandwidthHoldingSomethingElseIsFullAndOverwritten(String kind) {
        PolicyConfig login = policy("login", 3, HOUR);
        String key = engine.bucketKey("login", "10.0.0.1");
        damage(REDIS.admin(), key, kind);

        RateLimitDecision first = engine.decide(login, "10.0.0.1", 1);
        assertThat(first.allowed()).isTrue();
        assertThat(first.remaining()).isEqualTo(2);
        assertThat(REDIS.admin().type(key)).isEqualTo("string");
        assertThat(engine.decide(login, "10.0.0.1", 1).remaining()).isEqualTo(1);
    }

    /** 7/1h: a token every 514,285,714 2/7 µs, decided by the script's general path. */
    @ParameterizedTest
    @ValueSource(strings = {"hash", "word", "nan"})
    void aBucketWhoseIntervalIsNotWholeMicrosecondsHoldingSomethingElseIsFullAndOverwritten(String kind) {
        PolicyConfig login = policy("login", 7, HOUR);
        String key = engine.bucketKey("login", "10.0.0.1");
        damage(REDIS.admin(), key, kind);

        assertThat(engine.decide(login, "10.0.0.1", 1).remaining()).isEqualTo(6);
        assertThat(REDIS.admin().get(key)).as("the TAT and its remainder of 2 units in one integer").matches("\\d{16}002");
        assertThat(engine.decide(login, "10.0.0.1", 1).remaining()).isEqualTo(5);
    }

    /**
     * A TAT further ahead than a full bucket (the Redis clock stepped back, or the limit was lowered) counts as an
     * empty bucket, not an emptier one, and is stored as such even when the request is refused, so that the
     * client waits at most one refill.
     */
    @ParameterizedTest
    @ValueSource(longs = {5, 7})
    void aBucketFurtherAheadThanAFullBucketCountsAsEmpty(long tokens) {
        PolicyConfig login = policy("login", tokens, HOUR);
        String key = engine.bucketKey("login", "10.0.0.1");
        REDIS.admin().set(key, "99999999999999999");

        RateLimitDecision denied = engine.decide(login, "10.0.0.1", 1);
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.retryAfterMillis()).isBetween(3_600_000 / tokens - 5_000, 3_600_000 / tokens + 1);
        assertThat(REDIS.admin().pttl(key)).isBetween(3_600_000L - 5_000, 3_600_000L);
    }

    @ParameterizedTest
    @ValueSource(strings = {"hash", "list", "word"})
    void bucketsOfSeveralBandwidthsAndPoliciesHoldingSomethingElseAreFullAndOverwritten(String kind) {
        PolicyConfig api = policy("api", 4, 4, HOUR, 10, Duration.ofDays(1));
        PolicyConfig global = policy("global", 100, HOUR);
        String apiDaily = engine.bucketKey("api", "k") + ":1";
        String globalKey = engine.bucketKey("global", "all");
        damage(REDIS.admin(), apiDaily, kind);
        damage(REDIS.admin(), globalKey, kind);

        var decisions = engine.decide(java.util.List.of(
                new RateLimitEngine.LimitCall(api, "k", 1), new RateLimitEngine.LimitCall(global, "all", 1)));
        assertThat(decisions).allMatch(RateLimitDecision::allowed);
        assertThat(decisions.get(0).remaining()).isEqualTo(3);
        assertThat(decisions.get(1).remaining()).isEqualTo(99);
        assertThat(REDIS.admin().type(apiDaily)).isEqualTo("string");
        assertThat(REDIS.admin().type(globalKey)).isEqualTo("string");
    }
}
