package dev.sluice.internal.runtime;

import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.test.RedisCluster;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The documented ACL user on a Redis Cluster: the standalone rules ({@link RedisAclIT#ACL_RULES}) plus
 * {@link #CLUSTER_RULES}, which the cluster client needs to learn the slot map, set on every node. Everything works
 * without a denial on any node, and without the cluster rules the client cannot start.
 */
class RedisClusterAclIT {

    /** What Cluster needs on top of {@link RedisAclIT#ACL_RULES}; keep equal to docs/operations.md. */
    static final List<String> CLUSTER_RULES = List.of("+cluster|slots");

    private static final String PASSWORD = "Cluster-acl-pw-55d0";

    @RegisterExtension
    static final RedisCluster CLUSTER = RedisCluster.threeMasters();

    @AfterEach
    void dropUser() {
        for (int node = 0; node < 3; node++) {
            CLUSTER.onNode(node, jedis -> jedis.sendCommand(Protocol.Command.ACL, "DELUSER", "sluice"));
        }
    }

    @Test
    void everythingSluiceDoesWorksOnEveryNodeUnderTheDocumentedAclUser() throws Exception {
        List<String> rules = new ArrayList<>(RedisAclIT.ACL_RULES);
        rules.addAll(CLUSTER_RULES);
        createUserOnEveryNode(rules);

        try (SluiceRuntime runtime = SluiceRuntime.start(config())) {
            RedisAclIT.exercise(runtime, () -> CLUSTER.commandCount("evalsha"));
        }

        for (int node = 0; node < 3; node++) {
            assertThat(aclLog(node)).as("ACL LOG of node %d", node).isEmpty();
        }
    }

    @Test
    void withoutTheClusterRulesNothingWorks() {
        createUserOnEveryNode(RedisAclIT.ACL_RULES);

        try (SluiceRuntime runtime = SluiceRuntime.start(config())) {
            RedisAclIT.exercise(runtime, () -> CLUSTER.commandCount("evalsha"));
        } catch (Exception | AssertionError expected) {
            // Refused at startup or at the first call.
        }

        long denials = 0;
        for (int node = 0; node < 3; node++) {
            denials += aclLog(node).size();
        }
        assertThat(denials).isPositive();
    }

    private static SluiceConfig config() {
        return SluiceConfigLoader.load(ConfigSources.of(Map.of(
                "sluice.redis.cluster-nodes", String.join(",", CLUSTER.nodes()),
                "sluice.redis.user", "sluice",
                "sluice.redis.password", PASSWORD,
                "sluice.limit.strict.rate", "3/1h")));
    }

    private static void createUserOnEveryNode(List<String> rules) {
        List<String> args = new ArrayList<>(List.of("SETUSER", "sluice", "reset", "on", ">" + PASSWORD));
        args.addAll(rules);
        for (int node = 0; node < 3; node++) {
            CLUSTER.onNode(node, jedis -> {
                jedis.sendCommand(Protocol.Command.ACL, "LOG", "RESET");
                return jedis.sendCommand(Protocol.Command.ACL, args.toArray(String[]::new));
            });
        }
    }

    private static List<String> aclLog(int node) {
        return CLUSTER.onNode(node, (Jedis jedis) -> jedis.aclLog().stream()
                .map(e -> e.getReason() + " " + e.getObject() + " (" + e.getContext() + ")").toList());
    }
}
