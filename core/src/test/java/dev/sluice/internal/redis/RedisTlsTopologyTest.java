package dev.sluice.internal.redis;

import dev.sluice.SluiceConfigException;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.test.RedisCluster;
import dev.sluice.test.RedisProcess;
import dev.sluice.test.TestCertificates;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code sluice.redis.tls=true} with Sentinel and with Cluster, against real processes that serve TLS with a private
 * CA: every connection Sluice opens (to sentinels, the master, each cluster node) must be a TLS one, seen from the
 * servers' side as a connection to their TLS port ({@code laddr} in {@code CLIENT LIST}). Clients run in a child JVM
 * whose default truststore holds the CA, as in {@link RedisTlsConnectorTest}.
 */
class RedisTlsTopologyTest {

    private static final String PASSWORD = "Tls-master-pw-41c2";
    private static final String MASTER_NAME = "tlsmaster";

    @RegisterExtension
    static RedisCluster cluster = RedisCluster.threeMastersOverTls();

    private static TestCertificates certificates;
    private static RedisProcess master;
    private static int masterTlsPort;
    private static RedisProcess sentinel;
    private static int sentinelTlsPort;

    @BeforeEach
    void startTlsMasterAndSentinelOnce() {
        if (master != null) {
            return;
        }
        certificates = cluster.certificates();
        masterTlsPort = RedisProcess.freePort();
        List<String> masterArgs = new ArrayList<>(certificates.serverArgs(masterTlsPort));
        masterArgs.addAll(List.of("--requirepass", PASSWORD));
        master = RedisProcess.start(masterArgs);
        sentinelTlsPort = RedisProcess.freePort();
        List<String> sentinelConfig = new ArrayList<>(certificates.configLines(sentinelTlsPort));
        // The sentinel reaches the master over TLS too, and hands clients the master's TLS address.
        sentinelConfig.addAll(List.of("tls-replication yes",
                "sentinel monitor " + MASTER_NAME + " 127.0.0.1 " + masterTlsPort + " 1",
                "sentinel auth-pass " + MASTER_NAME + " " + PASSWORD));
        sentinel = RedisProcess.startSentinel(sentinelConfig);
    }

    @AfterAll
    static void stop() {
        for (RedisProcess process : new RedisProcess[] {sentinel, master}) {
            if (process != null) {
                process.close();
            }
        }
        sentinel = null;
        master = null;
    }

    @Test
    void sentinelAndMasterAreReachedOnlyOverTls() throws Exception {
        String verdict = probe(true, "sluice.redis.sentinels=127.0.0.1:" + sentinelTlsPort,
                "sluice.redis.master-name=" + MASTER_NAME, "sluice.redis.password=" + PASSWORD,
                "sluice.redis.tls=true",
                "expect-sentinel=" + sentinelTlsPort, "expect-master=" + masterTlsPort);

        assertThat(verdict).isEqualTo("OK");
    }

    @Test
    void everyClusterNodeIsReachedOnlyOverTls() throws Exception {
        String verdict = probe(true, "sluice.redis.cluster-nodes=" + String.join(",", cluster.tlsNodes()),
                "sluice.redis.tls=true");

        assertThat(verdict).isEqualTo("OK");
        for (int node = 0; node < 3; node++) {
            assertThat(cluster.onNode(node, Jedis::dbSize)).as("keys written on node %d", node).isPositive();
        }
    }

    @Test
    void aClusterWhoseCertificateIsNotTrustedFailsTheDeploymentNamingTheNodes() throws Exception {
        String verdict = probe(false, "sluice.redis.cluster-nodes=" + String.join(",", cluster.tlsNodes()),
                "sluice.redis.tls=true");

        assertThat(verdict).isEqualTo("CONFIG sluice.redis.cluster-nodes");
    }

    @Test
    void aSentinelWhoseCertificateIsNotTrustedFailsTheDeploymentNamingTheSentinels() throws Exception {
        String verdict = probe(false, "sluice.redis.sentinels=127.0.0.1:" + sentinelTlsPort,
                "sluice.redis.master-name=" + MASTER_NAME, "sluice.redis.password=" + PASSWORD,
                "sluice.redis.tls=true");

        assertThat(verdict).isEqualTo("CONFIG sluice.redis.sentinels");
    }

    /** Runs {@link Probe} in a child JVM and returns its verdict line. */
    private static String probe(boolean trust, String... settings) throws Exception {
        String output = certificates.runJava(trust, Probe.class, settings);
        List<String> lines = output.lines().filter(l -> l.startsWith("OK") || l.startsWith("CONFIG")
                || l.startsWith("FAILED")).toList();
        assertThat(lines).as(output).hasSize(1);
        return lines.get(0);
    }

    /**
     * Runs in the child JVM: loads the {@code key=value} arguments as configuration, writes keys, and checks from
     * each server's {@code CLIENT LIST} that every connection named {@code sluice} came in on its TLS port.
     * {@code expect-sentinel} and {@code expect-master} give those ports for Sentinel; in Cluster every node the
     * cluster announced must be one of the TLS seeds, and its connections must have come in on that port.
     */
    public static final class Probe {
        public static void main(String[] args) {
            Map<String, String> values = new HashMap<>();
            for (String arg : args) {
                int eq = arg.indexOf('=');
                values.put(arg.substring(0, eq), arg.substring(eq + 1));
            }
            String expectSentinel = values.remove("expect-sentinel");
            String expectMaster = values.remove("expect-master");
            try (RedisConnector connector = RedisConnector.connect(
                    SluiceConfigLoader.load(ConfigSources.of(values)).redis())) {
                UnifiedJedis client = connector.client();
                for (int i = 0; i < 30; i++) {
                    client.set("tls-key-" + i, "v");
                }
                List<String> problems = new ArrayList<>();
                if (client instanceof RedisClusterClient clusterClient) {
                    List<String> seeds = List.of(values.get("sluice.redis.cluster-nodes").split(","));
                    for (Map.Entry<String, ConnectionPool> node : clusterClient.getClusterNodes().entrySet()) {
                        String port = node.getKey().substring(node.getKey().lastIndexOf(':') + 1);
                        if (!seeds.contains(node.getKey())) {
                            problems.add("the cluster announced " + node.getKey() + ", not a TLS address");
                        }
                        try (Connection c = node.getValue().getResource()) {
                            problems.addAll(notOn(port, text(c.executeCommand(clientList()))));
                        }
                    }
                } else {
                    problems.addAll(notOn(expectMaster, text(client.executeCommand(clientList()))));
                    @SuppressWarnings("deprecation") // ssl(true): the JVM's default SSLContext, like the connector
                    DefaultJedisClientConfig tls = DefaultJedisClientConfig.builder().ssl(true).timeoutMillis(5000)
                            .build();
                    try (Jedis sentinelAdmin = new Jedis(new HostAndPort("127.0.0.1",
                            Integer.parseInt(expectSentinel)), tls)) {
                        problems.addAll(notOn(expectSentinel, text(sentinelAdmin.clientList())));
                    }
                }
                System.out.println(problems.isEmpty() ? "OK" : "FAILED connections not over TLS: " + problems);
            } catch (SluiceConfigException e) {
                System.out.println("CONFIG " + e.key());
                System.out.println(e.getMessage());
            } catch (RuntimeException e) {
                System.out.println("FAILED " + e);
                e.printStackTrace(System.out);
            }
        }

        private static CommandArguments clientList() {
            return new CommandArguments(Protocol.Command.CLIENT).add("LIST");
        }

        private static String text(Object reply) {
            return reply instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(reply);
        }

        /** The {@code sluice} connections in {@code clientList} that did not come in on {@code port}, or a note. */
        private static List<String> notOn(String port, String clientList) {
            List<String> sluice = clientList.lines().filter(l -> l.contains(" name=" + RedisConnector.CLIENT_NAME
                    + " ")).toList();
            if (sluice.isEmpty()) {
                return List.of("no sluice connection on the server of port " + port);
            }
            return sluice.stream().filter(l -> !l.contains(" laddr=127.0.0.1:" + port + " ")).toList();
        }
    }
}
