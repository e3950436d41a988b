package dev.sluice.internal.limit;

import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.SluiceConfigLoader;
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

/** The rate-limit contract on a real standalone Redis, through the runtime an application gets. */
class RedisRateLimitContractIT extends AbstractRateLimitContractTest {

    @RegisterExtension
    static final RedisServer REDIS = RedisServer.standalone();

    private SluiceRuntime runtime;

    @Override
    protected RateLimitStore freshStore() {
        runtime = SluiceRuntime.start(SluiceConfigLoader.load(ConfigSources.of(Map.of("sluice.redis.uri", REDIS.uri()))));
        return runtime.rateLimits().store();
    }

    @Test
    void anEnforcedAndAShadowedPolicyAreDecidedInOneEvalsha() {
        RateLimitEngine engine = runtime.rateLimits();
        List<RateLimitEngine.LimitCall> request = List.of(
                new RateLimitEngine.LimitCall(policy("enforced", 5, Duration.ofHours(1)), "k", 1, ChargeMode.ENFORCE),
                new RateLimitEngine.LimitCall(policy("shadowed", 1, Duration.ofHours(1)), "k", 1, ChargeMode.SHADOW),
                new RateLimitEngine.LimitCall(policy("login", 1, Duration.ofHours(1)), "k", 1, ChargeMode.CHECK));
        engine.decide(request);
        REDIS.resetStats();
        for (int i = 0; i < 3; i++) {
            engine.decide(request);
        }
        assertThat(REDIS.commandCount("evalsha")).isEqualTo(3);
        assertThat(REDIS.commandCount("eval")).isZero();
    }

    @AfterEach
    void closeRuntime() {
        runtime.close();
    }
}
