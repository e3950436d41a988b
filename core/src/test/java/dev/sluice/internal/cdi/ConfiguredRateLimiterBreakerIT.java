package dev.sluice.internal.cdi;

import dev.sluice.RateLimitDecision;
import dev.sluice.RateLimiter;
import dev.sluice.StoreUnavailableException;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.redis.CircuitBreaker;
import dev.sluice.internal.runtime.SluiceRuntime;
import dev.sluice.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The programmatic limiter ({@code Sluice.limiter()}) meets the application's circuit breaker like the filters
 * do: once a hung Redis has failed {@value CircuitBreaker#DEFAULT_THRESHOLD} times, calls are answered per the
 * policy's {@code on-redis-failure} without asking Redis (and so without waiting for a timeout).
 */
class ConfiguredRateLimiterBreakerIT {

    @RegisterExtension
    static RedisServer redis = RedisServer.standalone();

    private SluiceRuntime runtime;

    @AfterEach
    void stop() {
        if (runtime != null) {
            runtime.close();
        }
    }

    @Test
    void answersWithoutAskingAHungRedisOnceTheBreakerIsOpen() {
        redis.assumeControllable();
        SluiceConfig config = SluiceConfigLoader.load(ConfigSources.of(Map.of(
                "sluice.redis.uri", redis.uri(), "sluice.redis.timeout", "300ms",
                "sluice.limit.open.rate", "100/1m",
                "sluice.limit.closed.rate", "100/1m", "sluice.limit.closed.on-redis-failure", "deny")));
        runtime = SluiceRuntime.start(config);
        RateLimiter open = new ConfiguredRateLimiter(runtime, () -> config.policy("open").orElseThrow());
        RateLimiter closed = new ConfiguredRateLimiter(runtime, () -> config.policy("closed").orElseThrow());
        assertThat(open.tryAcquire("k").allowed()).isTrue();

        redis.pause();
        try {
            for (int i = 0; i < CircuitBreaker.DEFAULT_THRESHOLD; i++) {
                StoreUnavailableException timedOut = catchThrowableOfType(StoreUnavailableException.class,
                        () -> closed.tryAcquire("k"));
                assertThat(timedOut.retryAfter()).as("a real failure, Redis was asked").isEmpty();
            }
            assertThat(runtime.breaker().isOpen()).isTrue();

            StoreUnavailableException skipped = catchThrowableOfType(StoreUnavailableException.class,
                    () -> closed.tryAcquire("k"));
            assertThat(skipped.retryAfter()).as("skipped by the breaker, Redis not asked").isPresent();

            RateLimitDecision admitted = open.tryAcquire("k");
            assertThat(admitted.allowed()).as("on-redis-failure=allow").isTrue();
            assertThat(runtime.metrics().policy("open").redisErrorCount()).as("Redis was not asked").isZero();
            assertThat(runtime.metrics().policy("open").failOpenCount()).isEqualTo(1);
        } finally {
            redis.resume();
        }
    }
}
