package dev.sluice.internal.limit;

import dev.sluice.RateLimitDecision;
import dev.sluice.StoreUnavailableException;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.RedisSettings;
import dev.sluice.internal.redis.LuaScript;
import dev.sluice.internal.redis.RedisConnector;
import dev.sluice.internal.redis.ScriptExecutor;
import dev.sluice.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.sluice.internal.limit.Policies.policy;
import static dev.sluice.internal.limit.RedisRateLimitStoreTest.permit;
import static dev.sluice.internal.limit.RedisRateLimitStoreTest.rate;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * {@link RedisRateLimitStore} in Cluster mode splits a request's buckets by hash slot, one script call per slot,
 * and answers in the order asked. A standalone {@code redis-server} (one per class) stands in for the cluster: it
 * runs each per-slot call as a cluster node would, and counts them. The rate-limit contract holds as well.
 * {@code RedisClusterRateLimitContractIT} runs the same on a real cluster.
 */
class RedisRateLimitStoreSlotsTest extends AbstractRateLimitContractTest {

    @RegisterExtension
    static final RedisServer REDIS = RedisServer.standalone();

    private final List<RedisConnector> connectors = new ArrayList<>();

    @TempDir
    Path dir;

    @Override
    protected RateLimitStore freshStore() {
        return store(Map.of());
    }

    /** A Cluster-mode store with the operator's replacements {@code scripts} (name to location). */
    private RedisRateLimitStore store(Map<String, String> scripts) {
        RedisConnector connector = RedisConnector.connect(REDIS.settings());
        connectors.add(connector);
        return new RedisRateLimitStore(ScriptExecutor.of(connector), RedisRateLimitStore.Scripts.load(scripts),
                RedisSettings.Mode.CLUSTER, connector::discardIdleConnections, RedisRateLimitStore.DEFAULT_SENDERS,
                RedisRateLimitStore.DEFAULT_BATCH);
    }

    @AfterEach
    void closeConnectors() {
        connectors.forEach(RedisConnector::close);
    }

    private static int slot(RateLimitEngine engine, String policy, String rawKey) {
        return JedisClusterCRC16.getSlot(engine.bucketKey(policy, rawKey));
    }

    /**
     * Policies in different hash slots are decided by one call per slot, each atomic on its own: the denied policy
     * denies the request, but a policy decided in another slot has been charged.
     */
    @Override
    @Test
    void aDenialByOnePolicyChargesNoOtherPolicyOfTheRequest() {
        RateLimitEngine engine = Engines.over(freshStore(), "sluice");
        PolicyConfig perIp = policy("per-ip", 5, Duration.ofHours(1));
        PolicyConfig global = policy("global", 1, Duration.ofHours(1));
        List<RateLimitEngine.LimitCall> request = List.of(
                new RateLimitEngine.LimitCall(perIp, "10.0.0.1", 1),
                new RateLimitEngine.LimitCall(global, "all", 1));
        assertThat(slot(engine, "per-ip", "10.0.0.1")).isNotEqualTo(slot(engine, "global", "all"));
        assertThat(engine.decide(request)).allMatch(RateLimitDecision::allowed);
        List<RateLimitDecision> second = engine.decide(request);
        assertThat(second.get(1).allowed()).isFalse();
        assertThat(engine.decide(perIp, "10.0.0.1", 1).remaining()).as("charged in its own slot").isEqualTo(2);
    }

    /** As above: the enforced policy's bucket is in another hash slot, so it is charged although the check refuses. */
    @Override
    @Test
    void aRefusingCheckRefusesTheRequestSoItsEnforcedPoliciesAreNotCharged() {
        RateLimitEngine engine = Engines.over(freshStore(), "sluice");
        PolicyConfig login = policy("login", 1, Duration.ofHours(1));
        PolicyConfig api = policy("api", 5, Duration.ofHours(1));
        assertThat(slot(engine, "login", "k")).isNotEqualTo(slot(engine, "api", "k"));
        engine.decide(List.of(new RateLimitEngine.LimitCall(login, "k", 1, ChargeMode.CHARGE)));
        List<RateLimitDecision> refused = engine.decide(List.of(
                new RateLimitEngine.LimitCall(api, "k", 1, ChargeMode.ENFORCE),
                new RateLimitEngine.LimitCall(login, "k", 1, ChargeMode.CHECK)));
        assertThat(refused.get(1).allowed()).isFalse();
        assertThat(engine.decide(api, "k", 1).remaining()).as("charged in its own slot").isEqualTo(3);
    }

    /** Keys "{a}x", "{b}x", "{c}x" lie in three different slots. */
    private static String in(String tag, String key) {
        return "{" + tag + "}" + key;
    }

    @Test
    void theTagsUsedLieInDifferentSlots() {
        assertThat(List.of(JedisClusterCRC16.getSlot(in("a", "x")), JedisClusterCRC16.getSlot(in("b", "x")),
                JedisClusterCRC16.getSlot(in("c", "x")))).doesNotHaveDuplicates();
    }

    @Test
    void bucketsInSeveralSlotsAreDecidedOnePerSlotAndAnsweredInTheOrderAsked() {
        RateLimitStore store = freshStore();
        store.consume(List.of(rate(in("b", "r"), 3)));
        REDIS.resetStats();

        List<BucketOutcome> outcomes = store.consume(List.of(rate(in("a", "r"), 5), rate(in("b", "r"), 3),
                rate(in("a", "s"), 7), rate(in("c", "r"), 9)));

        assertThat(outcomes).extracting(BucketOutcome::remaining).containsExactly(4L, 1L, 6L, 8L);
        assertThat(REDIS.commandCount("evalsha")).as("one call per slot").isEqualTo(3);
    }

    @Test
    void bucketsInOneSlotGoInOneCall() {
        RateLimitStore store = freshStore();
        store.consume(List.of(rate(in("a", "warm"), 1)));
        REDIS.resetStats();

        List<BucketOutcome> outcomes = store.consume(List.of(rate(in("a", "r"), 5), rate(in("a", "s"), 3)));

        assertThat(outcomes).extracting(BucketOutcome::remaining).containsExactly(4L, 2L);
        assertThat(REDIS.commandCount("evalsha")).isEqualTo(1);
    }

    @Test
    void permitsInSeveralSlotsAreReturnedOneCallPerSlotAndCountedTogether() {
        RateLimitStore store = freshStore();
        store.consume(List.of(permit(in("a", "x"), 1, "p")));
        store.consume(List.of(permit(in("b", "x"), 1, "p")));
        store.consume(List.of(permit(in("a", "y"), 1, "p")));
        store.release(List.of(in("c", "warm")), "p");
        REDIS.resetStats();

        assertThat(store.release(List.of(in("a", "x"), in("b", "x"), in("a", "y"), in("c", "z")), "p")).isEqualTo(3);
        assertThat(REDIS.commandCount("evalsha")).as("one call per slot").isEqualTo(3);
        assertThat(store.consume(List.of(permit(in("b", "x"), 1, "q"))).get(0).allowed()).isTrue();
    }

    /**
     * A permit taken in one slot while the call of another slot fails: the request goes on without a permit (its
     * {@code on-redis-failure}), and the permit is returned in the background.
     */
    @Test
    void aPermitTakenInOneSlotWhileAnotherSlotFailsIsReturned() throws IOException {
        Path failingForBuckets = Files.writeString(dir.resolve("gcra.lua"), "if string.find(KEYS[1], ':rl:', 1, true)"
                + " then return redis.error_reply('slot down') end\n" + LuaScript.bundled("gcra").source(),
                StandardCharsets.UTF_8);
        RateLimitEngine engine = Engines.over(store(Map.of("gcra", "file:" + failingForBuckets)), "sluice");
        PolicyConfig reports = new PolicyConfig("reports", List.of(), dev.sluice.internal.config.KeySpec.IP,
                List.of(), java.util.Set.of(), 1, true, dev.sluice.internal.config.FailureMode.ALLOW,
                dev.sluice.internal.config.PolicyMode.ENFORCE, dev.sluice.internal.config.CountedStatuses.ALL,
                dev.sluice.internal.config.Exemptions.NONE, 1, 600_000);
        PolicyConfig hourly = policy("hourly", 5, Duration.ofHours(1));
        String permitKey = engine.permitKey("reports", "k");
        assertThat(JedisClusterCRC16.getSlot(permitKey)).isNotEqualTo(slot(engine, "hourly", "k"));

        assertThatThrownBy(() -> engine.decide(List.of(
                RateLimitEngine.LimitCall.concurrency(reports, "k", ChargeMode.CONCURRENCY, "failed"),
                new RateLimitEngine.LimitCall(hourly, "k", 1)))).isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("slot down");

        await().atMost(Duration.ofSeconds(10)).until(() -> REDIS.admin().zscore(permitKey, "failed") == null);
        assertThat(engine.decide(List.of(RateLimitEngine.LimitCall.concurrency(reports, "k", ChargeMode.CONCURRENCY,
                "next"))).get(0).allowed()).isTrue();
    }
}
