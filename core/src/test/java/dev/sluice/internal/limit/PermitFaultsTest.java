package dev.sluice.internal.limit;

import dev.sluice.StoreUnavailableException;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.CountedStatuses;
import dev.sluice.internal.config.Exemptions;
import dev.sluice.internal.config.FailureMode;
import dev.sluice.internal.config.KeySpec;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.PolicyMode;
import dev.sluice.internal.config.RedisSettings;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.redis.RedisConnector;
import dev.sluice.internal.redis.ScriptExecutor;
import dev.sluice.test.FaultyProxy;
import dev.sluice.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Concurrency permits under network faults, on a real {@code redis-server} behind a {@link FaultyProxy}: a permit
 * taken by a decision whose reply was lost, and one whose return was skipped by the open circuit breaker, come back
 * once Redis answers, long before their lease (ten minutes here) runs out.
 */
class PermitFaultsTest {

    @RegisterExtension
    static final RedisServer REDIS = RedisServer.standalone();

    private static final PolicyConfig REPORTS = new PolicyConfig("reports", List.of(), KeySpec.IP, List.of(),
            Set.of(), 1, true, FailureMode.ALLOW, PolicyMode.ENFORCE, CountedStatuses.ALL, Exemptions.NONE, 1,
            600_000);

    private FaultyProxy proxy;
    private RedisConnector connector;
    private RateLimitEngine engine;

    @BeforeEach
    void start() {
        proxy = FaultyProxy.start(REDIS.host(), REDIS.port());
        RedisSettings settings = SluiceConfigLoader.load(ConfigSources.of(Map.of("sluice.redis.uri", proxy.uri(),
                "sluice.redis.timeout", "300ms"))).redis();
        connector = RedisConnector.connect(settings);
        engine = Engines.over(new RedisRateLimitStore(ScriptExecutor.of(connector),
                RedisRateLimitStore.Scripts.load(Map.of()), RedisSettings.Mode.STANDALONE,
                connector::discardIdleConnections, RedisRateLimitStore.DEFAULT_SENDERS,
                RedisRateLimitStore.DEFAULT_BATCH), "sluice");
    }

    @AfterEach
    void stop() {
        connector.close();
        proxy.close();
    }

    private List<RateLimitEngine.LimitCall> request(String permitId) {
        return List.of(RateLimitEngine.LimitCall.concurrency(REPORTS, "alice", ChargeMode.CONCURRENCY, permitId));
    }

    private boolean holds(String permitId) {
        return REDIS.admin().zscore(engine.permitKey("reports", "alice"), permitId) != null;
    }

    @Test
    void aPermitTakenByADecisionWhoseReplyWasLostIsReturnedInTheBackground() {
        List<RateLimitEngine.LimitCall> warm = request("warm");
        engine.decide(warm);
        engine.hold(warm).release();
        proxy.dropReplies(true);
        assertThatThrownBy(() -> engine.decide(request("lost"))).isInstanceOf(StoreUnavailableException.class);
        assertThat(proxy.swallowedBytes()).as("the script ran; its reply was lost").isPositive();
        proxy.dropReplies(false);
        assertThat(holds("lost")).as("the lost decision took the permit").isTrue();

        await().atMost(Duration.ofSeconds(10)).until(() -> !holds("lost"));
        assertThat(engine.decide(request("next")).get(0).allowed()).as("the key's one permit is free").isTrue();
    }

    @Test
    void aReturnSkippedByTheOpenBreakerIsMadeOnceRedisAnswersAgain() {
        List<RateLimitEngine.LimitCall> admitted = request(engine.newPermitId());
        assertThat(engine.decide(admitted).get(0).allowed()).isTrue();
        HeldPermits held = engine.hold(admitted);
        String permitId = admitted.get(0).permitId();
        assertThat(holds(permitId)).isTrue();

        proxy.refuse(true);
        proxy.cutAll();
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            try {
                engine.decide(request("probe"));
            } catch (StoreUnavailableException e) {
                // counted by the breaker
            }
            return engine.breaker().isOpen();
        });
        held.release();
        assertThat(holds(permitId)).as("skipped: the breaker is open").isTrue();
        proxy.refuse(false);

        await().atMost(Duration.ofSeconds(10)).until(() -> !holds(permitId));
        assertThat(engine.decide(request("next")).get(0).allowed()).as("the key's one permit is free").isTrue();
    }
}
