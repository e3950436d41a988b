package dev.sluice.internal.limit;

import dev.sluice.RateLimitDecision;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.runtime.SluiceRuntime;
import dev.sluice.test.RedisCluster;

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
 * A reset in Redis Cluster: the bucket is deleted on the master that owns it and the message reaches a node
 * subscribed through any master (Cluster forwards published messages to every node). Two runtimes on a real
 * three-master cluster stand for two nodes.
 */
class ClusterBucketResetsIT {

    @RegisterExtension
    static final RedisCluster CLUSTER = RedisCluster.threeMasters();

    private final List<SluiceRuntime> nodes = new ArrayList<>();

    @AfterEach
    void stop() {
        nodes.forEach(SluiceRuntime::close);
    }

    private SluiceRuntime node() {
        SluiceRuntime node = SluiceRuntime.start(SluiceConfigLoader.load(ConfigSources.of(Map.of(
                "sluice.redis.cluster-nodes", String.join(",", CLUSTER.nodes()),
                "sluice.limit.hourly.rate", "1/1h"))));
        nodes.add(node);
        return node;
    }

    private static RateLimitDecision ask(SluiceRuntime node, String key) {
        PolicyConfig hourly = node.config().policy("hourly").orElseThrow();
        return node.rateLimits().decide(hourly, key, 1);
    }

    @Test
    void aResetReachesEveryNodeOfTheApplicationInCluster() throws Exception {
        SluiceRuntime a = node();
        SluiceRuntime b = node();
        List<String> keys = List.of("203.0.113.1", "203.0.113.2", "203.0.113.3", "user:alice");
        for (String key : keys) {
            assertThat(ask(a, key).allowed()).isTrue();
            assertThat(ask(a, key).allowed()).isFalse();
            assertThat(ask(b, key).allowed()).isFalse();
        }
        assertThat(b.rateLimits().denials().size()).isEqualTo(keys.size());
        assertThat(a.resets().awaitListening(10_000)).isTrue();
        assertThat(b.resets().awaitListening(10_000)).isTrue();

        for (String key : keys) {
            a.resets().reset("hourly", key);
        }

        await().atMost(Duration.ofSeconds(10)).until(() -> b.rateLimits().denials().size() == 0);
        for (String key : keys) {
            assertThat(ask(b, key).allowed()).as(key).isTrue();
        }
    }
}
