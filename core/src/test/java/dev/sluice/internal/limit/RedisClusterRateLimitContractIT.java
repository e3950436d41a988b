package dev.sluice.internal.limit;

import dev.sluice.RateLimitDecision;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.RedisSettings;
import dev.sluice.internal.redis.RedisConnector;
import dev.sluice.internal.redis.ScriptExecutor;
import dev.sluice.test.RedisCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static dev.sluice.internal.limit.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;

/** The rate-limit contract on a real three-master Redis Cluster, plus what is particular to Cluster. */
class RedisClusterRateLimitContractIT extends AbstractRateLimitContractTest {

    @RegisterExtension
    static final RedisCluster CLUSTER = RedisCluster.threeMasters();

    private RedisConnector connector;

    @Override
    protected RateLimitStore freshStore() {
        connector = RedisConnector.connect(CLUSTER.settings());
        return new RedisRateLimitStore(ScriptExecutor.of(connector), RedisRateLimitStore.Scripts.load(Map.of()),
                RedisSettings.Mode.CLUSTER, connector::discardIdleConnections, RedisRateLimitStore.DEFAULT_SENDERS,
                RedisRateLimitStore.DEFAULT_BATCH);
    }

    @AfterEach
    void closeConnector() {
        connector.close();
    }

    private RateLimitEngine engine() {
        return Engines.over(freshStore(), "sluice");
    }

    /**
     * In Cluster mode policies in different hash slots are decided by one call per slot, each atomic on its own:
     * the denied policy denies the request, but a policy decided in another slot has been charged.
     */
    @Override
    @Test
    void aDenialByOnePolicyChargesNoOtherPolicyOfTheRequest() {
        RateLimitEngine engine = engine();
        PolicyConfig perIp = policy("per-ip", 5, Duration.ofHours(1));
        PolicyConfig global = policy("global", 1, Duration.ofHours(1));
        List<RateLimitEngine.LimitCall> request = List.of(
                new RateLimitEngine.LimitCall(perIp, "10.0.0.1", 1),
                new RateLimitEngine.LimitCall(global, "all", 1));
        assertThat(CLUSTER.nodeOwning(engine.bucketKey("per-ip", "10.0.0.1")))
                .isNotEqualTo(CLUSTER.nodeOwning(engine.bucketKey("global", "all")));
        assertThat(engine.decide(request)).allMatch(RateLimitDecision::allowed);
        List<RateLimitDecision> second = engine.decide(request);
        assertThat(second.get(1).allowed()).isFalse();
        assertThat(engine.decide(perIp, "10.0.0.1", 1).remaining()).as("charged in its own slot").isEqualTo(2);
    }

    /** As above: the enforced policy's bucket is in another hash slot, so it is charged although the check refuses. */
    @Override
    @Test
    void aRefusingCheckRefusesTheRequestSoItsEnforcedPoliciesAreNotCharged() {
        RateLimitEngine engine = engine();
        PolicyConfig login = policy("login", 1, Duration.ofHours(1));
        PolicyConfig api = policy("api", 5, Duration.ofHours(1));
        engine.decide(List.of(new RateLimitEngine.LimitCall(login, "k", 1, ChargeMode.CHARGE)));
        List<RateLimitDecision> refused = engine.decide(List.of(
                new RateLimitEngine.LimitCall(api, "k", 1, ChargeMode.ENFORCE),
                new RateLimitEngine.LimitCall(login, "k", 1, ChargeMode.CHECK)));
        assertThat(refused.get(1).allowed()).isFalse();
        assertThat(engine.decide(api, "k", 1).remaining()).as("charged in its own slot").isEqualTo(3);
    }

    @Test
    void bucketsOfManyKeysSpreadOverEveryMaster() {
        RateLimitEngine engine = engine();
        PolicyConfig p = policy("p", 2, Duration.ofHours(1));
        Set<Integer> nodes = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            assertThat(engine.decide(p, "client-" + i, 1).allowed()).isTrue();
            nodes.add(CLUSTER.nodeOwning(engine.bucketKey("p", "client-" + i)));
        }
        assertThat(nodes).hasSize(3);
    }

    @Test
    void policiesInDifferentSlotsCostOneCallPerSlot() {
        RateLimitEngine engine = engine();
        List<RateLimitEngine.LimitCall> calls = new ArrayList<>();
        Set<Integer> slots = new HashSet<>();
        for (String name : List.of("a", "b", "c", "d", "e", "f")) {
            PolicyConfig p = policy(name, 5, Duration.ofHours(1));
            calls.add(new RateLimitEngine.LimitCall(p, "10.0.0.1", 1));
            slots.add(redis.clients.jedis.util.JedisClusterCRC16.getSlot(engine.bucketKey(name, "10.0.0.1")));
        }
        engine.decide(calls);
        CLUSTER.resetStats();
        List<RateLimitDecision> decisions = engine.decide(calls);
        assertThat(decisions).allMatch(RateLimitDecision::allowed);
        assertThat(CLUSTER.commandCount("evalsha")).isEqualTo(slots.size());
    }
}
