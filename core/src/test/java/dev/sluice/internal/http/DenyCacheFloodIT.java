package dev.sluice.internal.http;

import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.HeaderMode;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.runtime.SluiceRuntime;
import dev.sluice.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client flooding a refused key costs Redis one call per denial window per node, while other clients are
 * still decided by Redis; with {@code sluice.deny-cache.size=0} every refused request asks Redis.
 */
class DenyCacheFloodIT {

    @RegisterExtension
    static RedisServer redis = RedisServer.standalone();

    private SluiceRuntime runtime;

    @AfterEach
    void stop() {
        if (runtime != null) {
            runtime.close();
        }
    }

    private RateLimitGate gate(Map<String, String> extra) {
        Map<String, String> values = new HashMap<>(extra);
        values.put("sluice.redis.uri", redis.uri());
        values.put("sluice.limit.login.rate", "2/1h");
        values.put("sluice.limit.login.paths", "/login");
        SluiceConfig config = SluiceConfigLoader.load(ConfigSources.of(values));
        runtime = SluiceRuntime.start(config);
        return RateLimitGate.of(runtime, HeaderMode.IETF);
    }

    private Verdict post(RateLimitGate gate, String client) {
        return gate.decide(TestRequest.get("/login").method("POST").from(client),
                List.of(RateLimitGate.Policy.of(runtime.config().policy("login").orElseThrow(), false)), null);
    }

    @Test
    void aFloodOfRefusedRequestsCostsRedisOneCallPerDenialWindow() {
        RateLimitGate gate = gate(Map.of());
        post(gate, "203.0.113.9");
        post(gate, "203.0.113.9");
        assertThat(post(gate, "203.0.113.9").status()).isEqualTo(429);
        redis.resetStats();

        for (int i = 0; i < 1_000; i++) {
            assertThat(post(gate, "203.0.113.9").status()).isEqualTo(429);
        }
        assertThat(redis.commandCount("evalsha")).as("Redis calls during the flood").isZero();
        assertThat(runtime.metrics().policy("login").deniedLocallyCount()).isEqualTo(1_000);

        assertThat(post(gate, "198.51.100.4").admitted()).as("another client is decided by Redis").isTrue();
        assertThat(redis.commandCount("evalsha")).isEqualTo(1);
    }

    @Test
    void withTheCacheOffEveryRefusedRequestAsksRedis() {
        RateLimitGate gate = gate(Map.of("sluice.deny-cache.size", "0"));
        for (int i = 0; i < 3; i++) {
            post(gate, "203.0.113.9");
        }
        redis.resetStats();
        for (int i = 0; i < 50; i++) {
            assertThat(post(gate, "203.0.113.9").status()).isEqualTo(429);
        }
        assertThat(redis.commandCount("evalsha")).isEqualTo(50);
    }
}
