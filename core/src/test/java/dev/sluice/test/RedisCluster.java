package dev.sluice.test;

import dev.sluice.internal.config.RedisAddress;
import dev.sluice.internal.config.RedisSettings;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;
import org.opentest4j.TestAbortedException;

import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

/**
 * A Redis Cluster of three masters (no replicas) on loopback ports, as a JUnit 5 extension:
 *
 * <pre>{@code
 * @RegisterExtension static RedisCluster cluster = RedisCluster.threeMasters();
 * }</pre>
 *
 * <p>Built from {@link RedisProcess}es with {@code CLUSTER ADDSLOTSRANGE} and {@code CLUSTER MEET} (no
 * {@code redis-cli} needed), so it needs the {@code redis-server} binary; without it the test class is skipped.
 * Lives for the test class. Before each test every node is brought back up if a test stopped or paused it, emptied
 * and its statistics reset. When a test fails, the nodes' log files are printed to standard error.
 *
 * <p>Not thread-safe for concurrent lifecycle calls.
 */
public final class RedisCluster implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, TestWatcher {

    private static final int SLOTS = 16384;
    private static final Duration FORMATION_TIMEOUT = Duration.ofSeconds(20);

    private final int masters;
    private final boolean tls;
    private final List<RedisProcess> nodes = new ArrayList<>();
    private final List<Integer> tlsPorts = new ArrayList<>();
    private TestCertificates certificates;

    private RedisCluster(int masters, boolean tls) {
        this.masters = masters;
        this.tls = tls;
    }

    /** Three masters sharing the 16384 slots evenly. */
    public static RedisCluster threeMasters() {
        return new RedisCluster(3, false);
    }

    /**
     * Three masters that also serve TLS ({@link TestCertificates}) and talk to each other over TLS
     * ({@code tls-cluster yes}), so that a TLS client learns their TLS ports from {@code CLUSTER SLOTS}. The plain
     * ports stay open for the fixture's own administration ({@link #onNode}).
     */
    public static RedisCluster threeMastersOverTls() {
        return new RedisCluster(3, true);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        try {
            ensureStarted();
        } catch (TestAbortedException noBinary) {
            // Surefire does not report a class aborted in beforeAll at all; beforeEach skips each test visibly.
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        nodes.forEach(RedisProcess::close);
        nodes.clear();
        tlsPorts.clear();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        ensureStarted();
        boolean restarted = false;
        for (RedisProcess node : nodes) {
            node.resume();
            if (!node.isRunning()) {
                node.restart();
                restarted = true;
            }
        }
        if (restarted) {
            awaitHealthy();
        }
        flushAll();
        resetStats();
    }

    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        for (RedisProcess node : nodes) {
            System.err.println("Cluster node " + node.address() + " logged to " + node.logFile() + "; last lines:"
                    + System.lineSeparator() + node.logTail(15));
        }
    }

    /** The nodes as {@code 127.0.0.1:port}, usable as {@code sluice.redis.cluster-nodes}. */
    public List<String> nodes() {
        ensureStarted();
        return nodes.stream().map(RedisProcess::address).toList();
    }

    /** The nodes' TLS addresses {@code 127.0.0.1:tlsPort} ({@link #threeMastersOverTls()} only). */
    public List<String> tlsNodes() {
        ensureStarted();
        return tlsPorts.stream().map(port -> "127.0.0.1:" + port).toList();
    }

    /** The certificates the nodes serve ({@link #threeMastersOverTls()} only), to run a trusting client JVM. */
    public TestCertificates certificates() {
        ensureStarted();
        return certificates;
    }

    /** The node processes, to stop, kill or pause one. */
    public List<RedisProcess> processes() {
        ensureStarted();
        return List.copyOf(nodes);
    }

    /** Cluster settings with all nodes as seeds, default timeout and pool. */
    public RedisSettings settings() {
        return settings(RedisSettings.DEFAULT_TIMEOUT);
    }

    /** As {@link #settings()} with another {@code sluice.redis.timeout}. */
    public RedisSettings settings(Duration timeout) {
        List<RedisAddress> seeds = processes().stream().map(n -> new RedisAddress(n.host(), n.port())).toList();
        return new RedisSettings(Optional.empty(), List.of(), Optional.empty(), seeds, List.of(), Optional.empty(),
                Optional.empty(), 0, false, timeout, RedisSettings.Pool.DEFAULT, true);
    }

    /** Runs {@code action} on a fresh connection to node {@code index} (0-based). */
    public <T> T onNode(int index, Function<Jedis, T> action) {
        ensureStarted();
        RedisProcess node = nodes.get(index);
        try (Jedis jedis = new Jedis(new HostAndPort(node.host(), node.port()),
                DefaultJedisClientConfig.builder().clientName(RedisServer.ADMIN_CLIENT_NAME).timeoutMillis(5000)
                        .build())) {
            return action.apply(jedis);
        }
    }

    /** The index of the node serving {@code key}'s hash slot (slots are split evenly, in node order). */
    public int nodeOwning(String key) {
        return JedisClusterCRC16.getSlot(key) * masters / SLOTS;
    }

    /** {@code FLUSHALL} on every node. */
    public void flushAll() {
        for (int i = 0; i < masters; i++) {
            onNode(i, Jedis::flushAll);
        }
    }

    /** {@code CONFIG RESETSTAT} on every node. */
    public void resetStats() {
        for (int i = 0; i < masters; i++) {
            onNode(i, Jedis::configResetStat);
        }
    }

    /** How often {@code command} ran on all nodes together since the last {@link #resetStats()}. */
    public long commandCount(String command) {
        long total = 0;
        for (int i = 0; i < masters; i++) {
            total += commandCount(i, command);
        }
        return total;
    }

    /** How often {@code command} ran on node {@code index}. */
    public long commandCount(int index, String command) {
        return RedisStats.commandCount(onNode(index, jedis -> jedis.info("commandstats")), command);
    }

    @Override
    public String toString() {
        return "RedisCluster" + nodes.stream().map(RedisProcess::address).toList();
    }

    private void ensureStarted() {
        if (!nodes.isEmpty()) {
            return;
        }
        RedisProcess.assumeBinary();
        List<Integer> busPorts = new ArrayList<>();
        try {
            for (int i = 0; i < masters; i++) {
                int busPort = RedisProcess.freePort();
                busPorts.add(busPort);
                List<String> args = new ArrayList<>(List.of("--cluster-enabled", "yes", "--cluster-config-file",
                        "nodes.conf", "--cluster-port", String.valueOf(busPort), "--cluster-node-timeout", "5000"));
                if (tls) {
                    if (certificates == null) {
                        certificates = TestCertificates.create();
                    }
                    int tlsPort = RedisProcess.freePort();
                    tlsPorts.add(tlsPort);
                    args.addAll(certificates.serverArgs(tlsPort));
                    args.addAll(List.of("--tls-cluster", "yes", "--tls-replication", "yes"));
                }
                nodes.add(RedisProcess.start(args));
            }
            for (int i = 0; i < masters; i++) {
                int first = i * SLOTS / masters;
                int last = (i + 1) * SLOTS / masters - 1;
                int epoch = i + 1;
                onNode(i, jedis -> {
                    // Distinct epochs spare the nodes the collision-resolution dance redis-cli also avoids.
                    jedis.sendCommand(Protocol.Command.CLUSTER, "SET-CONFIG-EPOCH", String.valueOf(epoch));
                    return jedis.sendCommand(Protocol.Command.CLUSTER, "ADDSLOTSRANGE", String.valueOf(first),
                            String.valueOf(last));
                });
            }
            for (int i = 1; i < masters; i++) {
                RedisProcess node = nodes.get(i);
                int busPort = busPorts.get(i);
                onNode(0, jedis -> jedis.sendCommand(Protocol.Command.CLUSTER, "MEET", node.host(),
                        String.valueOf(node.port()), String.valueOf(busPort)));
            }
            awaitHealthy();
        } catch (RuntimeException e) {
            nodes.forEach(RedisProcess::close);
            nodes.clear();
            tlsPorts.clear();
            throw e;
        }
    }

    /**
     * Polls until every node sees all nodes, all slots served, the cluster state ok and its links to and from every
     * other node in place. The state turns ok while two nodes that met through a third may still be shaking hands,
     * and a message published in that window does not reach the subscribers of the node without a link yet. The link
     * from a node that was met through gossip is tied to it only by the next PING on it: until then Valkey 8.0 drops
     * a {@code PUBLISH} forwarded on that link (it forwards them with a header that does not name the sender, and
     * closes a link whose first message is one; valkey-io/valkey#2817), so each node must list an inbound link from
     * every other in {@code CLUSTER LINKS}.
     */
    private void awaitHealthy() {
        long deadline = System.nanoTime() + FORMATION_TIMEOUT.toNanos();
        while (true) {
            boolean healthy = true;
            String lastInfo = "";
            for (int i = 0; i < masters && healthy; i++) {
                lastInfo = onNode(i, Jedis::clusterInfo);
                healthy = lastInfo.contains("cluster_state:ok")
                        && lastInfo.contains("cluster_known_nodes:" + masters)
                        && lastInfo.contains("cluster_slots_ok:" + SLOTS)
                        && allLinksConnected(onNode(i, Jedis::clusterNodes))
                        && linksBothWays(onNode(i, Jedis::clusterLinks));
            }
            if (healthy) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the cluster " + this + " did not form within " + FORMATION_TIMEOUT
                        + "; last CLUSTER INFO:" + System.lineSeparator() + lastInfo);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }

    /**
     * Whether a node's {@code CLUSTER NODES} lists {@link #masters} nodes, none in handshake, each link connected
     * ({@code <id> <addr> <flags> <master> <ping-sent> <pong-recv> <epoch> <link-state> <slots...>}).
     */
    private boolean allLinksConnected(String clusterNodes) {
        List<String> lines = clusterNodes.lines().filter(l -> !l.isBlank()).toList();
        return lines.size() == masters && lines.stream().map(l -> l.split(" ")).allMatch(f -> f.length > 7
                && !f[2].contains("handshake") && f[7].equals("connected"));
    }

    /**
     * Whether a node's {@code CLUSTER LINKS} holds, for each of the other nodes, a link to it and a link from it
     * tied to it (an inbound link appears there only once the node knows who is at its other end).
     */
    private boolean linksBothWays(List<Map<String, Object>> links) {
        Set<String> to = new HashSet<>();
        Set<String> from = new HashSet<>();
        for (Map<String, Object> link : links) {
            String node = String.valueOf(link.get("node"));
            (link.get("direction").equals("from") ? from : to).add(node);
        }
        return to.size() == masters - 1 && from.equals(to);
    }
}
