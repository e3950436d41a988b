package dev.sluice.internal.limit;

import dev.sluice.RateLimitDecision;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.runtime.SluiceRuntime;
import dev.sluice.test.RedisServer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A bucket deleted by hand in Redis ({@code redis-cli DEL}, as docs/rate-limiting.md shows) is noticed by a node
 * that cached its refusal no later than one deny-cache entry's life, not at the end of the refusal (an hour for
 * {@code 1/1h}). Two runtimes on one real redis-server stand for two nodes of a cluster.
 */
class DenyCacheHandDeletedBucketIT {

    @RegisterExtension
    static final RedisServer REDIS = RedisServer.standalone();

    private static final String CLIENT = "203.0.113.7";
    private static final long ENTRY_LIFE_MILLIS = 5_000;

    private final List<SluiceRuntime> nodes = new ArrayList<>();

    @AfterEach
    void stop() {
        nodes.forEach(SluiceRuntime::close);
    }

    private SluiceRuntime node() {
        SluiceRuntime node = SluiceRuntime.start(SluiceConfigLoader.load(ConfigSources.of(Map.of(
                "sluice.redis.uri", REDIS.uri(), "sluice.limit.hourly.rate", "1/1h"))));
        nodes.add(node);
        return node;
    }

    private static RateLimitDecision ask(SluiceRuntime node) {
        PolicyConfig hourly = node.config().policy("hourly").orElseThrow();
        return node.rateLimits().decide(hourly, CLIENT, 1);
    }

    @Test
    void aBucketDeletedByHandIsNoticedWithinOneEntrysLife() {
        SluiceRuntime a = node();
        SluiceRuntime b = node();
        assertThat(ask(a).allowed()).isTrue();
        assertThat(ask(a).allowed()).isFalse();
        assertThat(ask(b).retryAfterMillis()).as("refused for about an hour").isGreaterThan(3_000_000);
        assertThat(ask(b).allowed()).isFalse();
        assertThat(b.metrics().policy("hourly").deniedLocallyCount()).as("B refuses from its cache").isEqualTo(1);

        REDIS.admin().del(a.rateLimits().bucketKey("hourly", CLIENT));

        await().atMost(Duration.ofMillis(ENTRY_LIFE_MILLIS + 5_000)).pollInterval(Duration.ofMillis(100))
                .until(() -> ask(b).allowed());
    }
}
