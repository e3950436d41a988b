package dev.sluice.internal.limit;

import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.runtime.SluiceRuntime;
import dev.sluice.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.Map;

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

    @AfterEach
    void closeRuntime() {
        runtime.close();
    }
}
