package dev.sluice.internal.limit;

import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.runtime.ConfigReloads;
import dev.sluice.internal.runtime.Reloadable;
import dev.sluice.internal.runtime.SluiceRuntime;
import dev.sluice.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static dev.sluice.internal.limit.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a node holds under local budgets goes back to the buckets in Redis when its application is undeployed (the
 * runtime closes) and, for the policies a reload changed, when the reload applies; other policies keep theirs.
 */
class LocalBudgetReturnsIT {

    @RegisterExtension
    static final RedisServer REDIS = RedisServer.standalone();

    /** 20 an hour with budgets an hour long, so that nothing ages during the test. */
    private static final PolicyConfig HOT = policy("hot", 20, 20, Duration.ofHours(1)).withLocalBudget(3_600_000);
    private static final PolicyConfig COLD = policy("cold", 20, 20, Duration.ofHours(1)).withLocalBudget(3_600_000);

    private final SluiceRuntime node = start();
    /** Another node, without budgets, that reads the buckets. */
    private final SluiceRuntime reader = start();

    private static SluiceRuntime start() {
        return SluiceRuntime.start(SluiceConfigLoader.load(ConfigSources.of(Map.of("sluice.redis.uri", REDIS.uri()))));
    }

    @AfterEach
    void close() {
        node.close();
        reader.close();
    }

    /** Five requests: reservations of 0, 1 and 3 tokens, so that the node holds 2 afterwards. */
    private void fiveRequests(PolicyConfig policy) {
        for (int i = 0; i < 5; i++) {
            assertThat(node.rateLimits().decide(policy, "k", 1).allowed()).isTrue();
        }
    }

    private long leftInTheBucket(PolicyConfig policy) {
        return reader.rateLimits().decide(List.of(new RateLimitEngine.LimitCall(policy.withLocalBudget(0), "k", 1,
                ChargeMode.CHECK))).get(0).remaining();
    }

    @Test
    void undeployingReturnsTheTokensTheNodeHeld() {
        fiveRequests(HOT);
        assertThat(leftInTheBucket(HOT)).isEqualTo(20 - 5 - 2);
        node.close();
        assertThat(leftInTheBucket(HOT)).isEqualTo(20 - 5);
    }

    @Test
    void aReloadReturnsTheBudgetsOfThePoliciesItChangedOnly() {
        fiveRequests(HOT);
        fiveRequests(COLD);
        PolicyConfig slower = policy("hot", 20, 10, Duration.ofHours(1)).withLocalBudget(3_600_000);
        node.reloads().register(new Reloadable() {
            @Override
            public String describe() {
                return "test reloadable";
            }

            @Override
            public ConfigReloads.Outcome reload() {
                return new ConfigReloads.Outcome(List.of(new ConfigReloads.Change("hot", HOT, slower)), List.of());
            }
        }, getClass().getClassLoader(), Duration.ZERO);

        node.reloads().reload();

        assertThat(leftInTheBucket(HOT)).isEqualTo(20 - 5);
        assertThat(leftInTheBucket(COLD)).as("unchanged: kept by the node").isEqualTo(20 - 5 - 2);
        REDIS.resetStats();
        assertThat(node.rateLimits().decide(COLD, "k", 1).allowed()).isTrue();
        assertThat(REDIS.commandCount("evalsha")).as("cold's tokens are still the node's").isZero();
    }
}
