package dev.sluice.internal.limit;

import dev.sluice.RateLimitDecision;
import dev.sluice.StoreUnavailableException;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.runtime.SluiceRuntime;
import dev.sluice.test.RedisServer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A reset gives a client its burst back on every node at once: two runtimes on one real redis-server stand for
 * two nodes, each refusing the client from its deny cache; a reset through one of them (its JMX operation, or
 * the runtime's resets) deletes the bucket and makes the other forget its refusal through Redis pub/sub.
 */
class BucketResetsTest {

    @RegisterExtension
    static final RedisServer REDIS = RedisServer.standalone();

    private static final AtomicInteger PREFIXES = new AtomicInteger();

    private final List<SluiceRuntime> nodes = new ArrayList<>();
    /** The nodes of one test share a key prefix, and so a reset channel, which no other test's nodes use. */
    private final String prefix = "reset" + PREFIXES.incrementAndGet();

    @AfterEach
    void stop() {
        nodes.forEach(SluiceRuntime::close);
    }

    private SluiceRuntime node(String app) {
        SluiceRuntime node = SluiceRuntime.start(SluiceConfigLoader.load(ConfigSources.of(Map.of(
                "sluice.redis.uri", REDIS.uri(), "sluice.key-prefix", prefix, "sluice.limit.hourly.rate", "1/1h"))),
                app, null);
        nodes.add(node);
        return node;
    }

    private static RateLimitDecision ask(SluiceRuntime node, String key) {
        PolicyConfig hourly = node.config().policy("hourly").orElseThrow();
        return node.rateLimits().decide(hourly, key, 1);
    }

    /** Spends {@code key}'s burst and has both nodes refuse it from their caches. */
    private static void refusedFromBothCaches(SluiceRuntime a, SluiceRuntime b, String key) throws Exception {
        assertThat(ask(a, key).allowed()).isTrue();
        for (SluiceRuntime node : List.of(a, b)) {
            assertThat(ask(node, key).allowed()).isFalse();
            assertThat(ask(node, key).allowed()).isFalse();
            assertThat(node.rateLimits().denials().size()).isEqualTo(1);
            assertThat(node.resets().awaitListening(10_000)).as("subscribed to resets").isTrue();
        }
    }

    @Test
    void aResetThroughOneNodeGivesTheBurstBackOnEveryNode() throws Exception {
        SluiceRuntime a = node("reset-a");
        SluiceRuntime b = node("reset-b");
        String hostile = "{evil}\r\n:*";
        refusedFromBothCaches(a, b, hostile);

        assertThat(a.resets().reset("hourly", hostile)).as("nodes told").isEqualTo(2);

        assertThat(ask(a, hostile).allowed()).as("the resetting node, at once").isTrue();
        // only the message can empty B's cache: expired entries stay until they are looked up
        await().atMost(Duration.ofSeconds(10)).until(() -> b.rateLimits().denials().size() == 0);
        assertThat(ask(b, hostile).allowed()).as("B asks Redis, where the burst was spent by A again").isFalse();
        assertThat(REDIS.admin().keys("*{*")).allSatisfy(k -> assertThat(k).doesNotContain("\r", "\n", "{evil}"));
    }

    @Test
    void theJmxOperationResetsOneKeyOnEveryNodeAndNoOther() throws Exception {
        SluiceRuntime a = node("jmx-a");
        SluiceRuntime b = node("jmx-b");
        refusedFromBothCaches(a, b, "198.51.100.1");
        assertThat(ask(a, "198.51.100.2").allowed()).isTrue();

        MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
        Object answer = jmx.invoke(new ObjectName("dev.sluice:type=RateLimit,app=jmx-b,name=hourly"), "reset",
                new Object[] {"198.51.100.1"}, new String[] {String.class.getName()});

        assertThat(answer.toString()).contains("2 subscribed node(s)");
        await().atMost(Duration.ofSeconds(10)).until(() -> a.rateLimits().denials().size() == 0);
        assertThat(ask(b, "198.51.100.1").allowed()).isTrue();
        assertThat(ask(a, "198.51.100.2").allowed()).as("another client keeps its spent bucket").isFalse();
    }

    @Test
    void aNodeWhoseSubscriptionWasLostForgetsEverythingItCachedOnceSubscribedAgain() throws Exception {
        SluiceRuntime a = node("lost-a");
        SluiceRuntime b = node("lost-b");
        refusedFromBothCaches(a, b, "198.51.100.7");

        REDIS.admin().sendCommand(redis.clients.jedis.Protocol.Command.CLIENT, "KILL", "TYPE", "pubsub");

        await("both caches emptied after the resubscription").atMost(Duration.ofSeconds(10))
                .until(() -> a.rateLimits().denials().size() == 0 && b.rateLimits().denials().size() == 0);
        assertThat(ask(b, "198.51.100.7").allowed()).as("asked Redis again: still spent").isFalse();
    }

    @Test
    void aResetNeedsAKeyAndNamesThePolicyWhenRedisCannotBeReached() throws Exception {
        SluiceRuntime a = node("fail-a");
        for (String none : new String[] {null, ""}) {
            assertThatThrownBy(() -> a.resets().reset("hourly", none)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("policy 'hourly'");
        }
        REDIS.assumeControllable();
        REDIS.stop();
        assertThatThrownBy(() -> a.resets().reset("hourly", "198.51.100.9"))
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("could not reset a bucket of policy 'hourly'");
    }

    @Test
    void aClosedNodeStopsListening() throws Exception {
        SluiceRuntime a = node("closed-a");
        SluiceRuntime b = node("closed-b");
        refusedFromBothCaches(a, b, "198.51.100.8");

        b.resets().close();
        await().atMost(Duration.ofSeconds(10)).until(() -> subscribers(prefix + ":reset") == 1);

        assertThat(a.resets().reset("hourly", "198.51.100.8")).as("only A is told").isEqualTo(1);
        assertThat(b.resets().awaitListening(0)).isFalse();
    }

    private static long subscribers(String channel) {
        List<?> reply = (List<?>) REDIS.admin().sendCommand(redis.clients.jedis.Protocol.Command.PUBSUB, "NUMSUB",
                channel);
        return (Long) reply.get(1);
    }

    @Test
    void theInProcessStoreResetsItsOwnBucket() {
        SluiceRuntime local = SluiceRuntime.start(SluiceConfigLoader.load(ConfigSources.of(Map.of(
                "sluice.limit.hourly.rate", "1/1h"))));
        nodes.add(local);
        assertThat(ask(local, "alice").allowed()).isTrue();
        assertThat(ask(local, "alice").allowed()).isFalse();
        assertThat(ask(local, "alice").allowed()).isFalse();

        local.resets().reset("hourly", "alice");

        assertThat(ask(local, "alice").allowed()).isTrue();
    }
}
