package dev.sluice.internal.redis;

import dev.sluice.internal.config.RedisAddress;
import dev.sluice.SluiceConfigException;
import dev.sluice.internal.config.RedisSettings;
import dev.sluice.internal.config.RedisSettings.Mode;
import dev.sluice.test.RedisCluster;
import dev.sluice.test.RedisProcess;
import dev.sluice.test.RedisStats;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/** The connector and the script executor against a three-master Redis Cluster. */
class RedisClusterTest {

    @RegisterExtension
    static RedisCluster cluster = RedisCluster.threeMasters();

    private final LuaScript incr = LuaScript.bundled("test-incr");

    @Test
    void spreadsKeysOverEveryMaster() {
        try (RedisConnector connector = RedisConnector.connect(cluster.settings())) {
            for (int i = 0; i < 30; i++) {
                connector.client().set("key-" + i, "v" + i);
            }

            assertThat(connector.mode()).isEqualTo(Mode.CLUSTER);
            assertThat(connector.ping()).isTrue();
            List<Long> keysPerNode = IntStream.range(0, 3).mapToObj(i -> cluster.onNode(i, Jedis::dbSize)).toList();
            assertThat(keysPerNode).allSatisfy(count -> assertThat(count).isPositive());
            assertThat(keysPerNode.stream().mapToLong(Long::longValue).sum()).isEqualTo(30);
        }
    }

    @Test
    void preloadPutsScriptsOnEveryNode() {
        try (RedisConnector connector = RedisConnector.connect(cluster.settings())) {
            ScriptExecutor.of(connector).preload(List.of(incr));

            for (int i = 0; i < 3; i++) {
                Boolean loaded = cluster.onNode(i, jedis -> jedis.scriptExists(incr.sha()));
                assertThat(loaded).as("node " + i).isTrue();
            }
        }
    }

    @Test
    void scriptsFlushedEverywhereAreReloadedOnTheNodeOwningTheKey() {
        try (RedisConnector connector = RedisConnector.connect(cluster.settings())) {
            ScriptExecutor executor = ScriptExecutor.of(connector);
            executor.preload(List.of(incr));
            List<String> keys = keysOnDistinctNodes();
            for (String key : keys) {
                assertThat(executor.eval(incr, List.of(key), List.of("1"))).isEqualTo(1L);
            }

            for (int i = 0; i < 3; i++) {
                cluster.onNode(i, Jedis::scriptFlush);
            }
            cluster.resetStats();

            for (String key : keys) {
                assertThat(executor.eval(incr, List.of(key), List.of("1"))).isEqualTo(2L);
            }
            assertThat(cluster.commandCount("eval")).isZero();
            assertThat(cluster.commandCount("script|load")).as("one load per node").isEqualTo(3);
            for (int i = 0; i < 3; i++) {
                assertThat(cluster.commandCount(i, "script|load")).as("node " + i).isEqualTo(1);
            }
        }
    }

    @Test
    void closeLeavesNoConnectionOnAnyNodeAndNoThread() {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        RedisConnector connector = RedisConnector.connect(cluster.settings());
        keysOnDistinctNodes().forEach(key -> connector.client().set(key, "x"));
        assertThat(sluiceConnections()).isPositive();

        connector.close();

        await().pollInSameThread().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(sluiceConnections()).isZero();
            assertThat(Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> !before.contains(t) && t.isAlive())
                    .map(Thread::getName)
                    .collect(Collectors.toSet())).isEmpty();
        });
    }

    @Test
    void seedNodesDownAtDeployDoNotFailIt() {
        RedisSettings down = new RedisSettings(Optional.empty(), List.of(), Optional.empty(),
                List.of(new RedisAddress("127.0.0.1", RedisProcess.freePort()),
                        new RedisAddress("127.0.0.1", RedisProcess.freePort())), List.of(),
                Optional.empty(), Optional.empty(), 0, false, Duration.ofMillis(300), RedisSettings.Pool.DEFAULT, true);

        try (RedisConnector connector = RedisConnector.connect(down)) {
            assertThat(connector.ping()).isFalse();
            assertThatThrownBy(connector::client).isInstanceOf(JedisConnectionException.class)
                    .hasMessageContaining("cannot be reached");
        }
    }

    @Test
    void aPasswordTheNodesDoNotHaveFailsTheDeploymentNamingTheKey() {
        RedisSettings withPassword = new RedisSettings(Optional.empty(), List.of(), Optional.empty(),
                cluster.settings().clusterNodes(), List.of(), Optional.empty(), Optional.of("Unneeded-pw-77aa"), 0, false,
                Duration.ofSeconds(2), RedisSettings.Pool.DEFAULT, true);

        assertThatThrownBy(() -> RedisConnector.connect(withPassword))
                .isInstanceOfSatisfying(SluiceConfigException.class,
                        e -> assertThat(e.key()).isEqualTo("sluice.redis.password"))
                .hasMessageContaining("no password configured")
                .satisfies(e -> assertThat(RedisConnectorTest.everything(e)).doesNotContain("Unneeded-pw-77aa"));
    }

    /**
     * A node that stops answering after it received a script (SIGSTOP) must not get the script again: the reply was
     * lost, not the call, and a second run would charge a bucket twice or refuse a lock to its own holder. Idle
     * pooled connections to the node are there on purpose, as in production: a retry would find them at once. The
     * call fails after one timeout, not after one per attempt.
     */
    @Test
    void aScriptWhoseReplyIsLostIsNotSentAgainAndFailsAfterOneTimeout() {
        Duration timeout = Duration.ofSeconds(1);
        try (RedisConnector connector = RedisConnector.connect(cluster.settings(timeout))) {
            ScriptExecutor executor = ScriptExecutor.of(connector);
            executor.preload(List.of(incr));
            String key = keysOnDistinctNodes().get(1);
            RedisProcess node = cluster.processes().get(1);
            warmPool(connector, node, 5);
            node.pause();

            long started = System.nanoTime();
            Throwable failure = catchThrowable(() -> executor.eval(incr, List.of(key), List.of("1")));
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            node.resume();
            long runs = await().atMost(Duration.ofSeconds(10)).until(() -> counter(key), Objects::nonNull);
            System.out.println("Cluster, node paused, timeout " + timeout.toMillis() + " ms: the script call failed"
                    + " after " + took.toMillis() + " ms and ran " + runs + " time(s)");

            assertThat(failure).isInstanceOf(JedisConnectionException.class);
            assertThat(runs).as("runs of the script").isEqualTo(1);
            assertThat(took).as("one timeout, not one per attempt").isLessThan(timeout.multipliedBy(2));
        }
    }

    /**
     * Redirections are the one reason to send a script again, since Redis did not run it: {@code ASK} while its
     * slot migrates (the key is not on the old node yet), {@code MOVED} once it has moved. Each call runs the script
     * exactly once, on the node that owns the key.
     */
    @Test
    void scriptsFollowAskAndMovedRedirectionsAndRunOnce() {
        try (RedisConnector connector = RedisConnector.connect(cluster.settings())) {
            ScriptExecutor executor = ScriptExecutor.of(connector);
            executor.preload(List.of(incr));
            String key = keysOnDistinctNodes().get(0);
            String slot = Integer.toString(JedisClusterCRC16.getSlot(key));
            String from = cluster.onNode(0, jedis -> new String((byte[]) jedis.sendCommand(Protocol.Command.CLUSTER, "MYID"), StandardCharsets.UTF_8));
            String to = cluster.onNode(1, jedis -> new String((byte[]) jedis.sendCommand(Protocol.Command.CLUSTER, "MYID"), StandardCharsets.UTF_8));
            assertThat(executor.eval(incr, List.of("other-" + key), List.of("1"))).isEqualTo(1L); // slot map known
            try {
                setSlot(1, slot, "IMPORTING", from);
                setSlot(0, slot, "MIGRATING", to);

                assertThat(executor.eval(incr, List.of(key), List.of("1"))).as("after ASK").isEqualTo(1L);

                for (int node = 0; node < 3; node++) {
                    setSlot(node, slot, "NODE", to);
                }
                assertThat(executor.eval(incr, List.of(key), List.of("1"))).as("after MOVED").isEqualTo(2L);
                String stored = cluster.onNode(1, jedis -> jedis.get(key));
                assertThat(stored).isEqualTo("2");
                assertThat(cluster.commandCount(1, "evalsha")).as("runs on the new owner").isEqualTo(2);
            } finally {
                cluster.onNode(1, jedis -> jedis.del(key));
                for (int node = 0; node < 3; node++) {
                    setSlot(node, slot, "NODE", from);
                }
            }
        }
    }

    private void setSlot(int node, String slot, String state, String nodeId) {
        cluster.onNode(node, jedis -> jedis.sendCommand(Protocol.Command.CLUSTER, "SETSLOT", slot, state, nodeId));
    }

    /** The counter the test script keeps at {@code key}, once its node answers; null while it does not exist. */
    private Long counter(String key) {
        String value = cluster.onNode(cluster.nodeOwning(key), jedis -> jedis.get(key));
        return value == null ? null : Long.parseLong(value);
    }

    /** Leaves {@code count} idle connections to {@code node} in the connector's pool. */
    private static void warmPool(RedisConnector connector, RedisProcess node, int count) {
        ConnectionPool pool = ((RedisClusterClient) connector.client()).getClusterNodes().get(node.address());
        List<Connection> borrowed = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            borrowed.add(pool.getResource());
        }
        borrowed.forEach(Connection::close);
    }

    private long sluiceConnections() {
        long total = 0;
        for (int i = 0; i < 3; i++) {
            total += cluster.onNode(i, jedis -> RedisStats.clientCount(jedis.clientList(), RedisConnector.CLIENT_NAME));
        }
        return total;
    }

    /** One key per master. */
    private List<String> keysOnDistinctNodes() {
        List<String> keys = new ArrayList<>();
        for (int node = 0; node < 3; node++) {
            int n = node;
            keys.add(IntStream.range(0, 1000).mapToObj(i -> "k" + i)
                    .filter(key -> cluster.nodeOwning(key) == n)
                    .findFirst().orElseThrow());
        }
        return keys;
    }
}
