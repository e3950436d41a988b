package dev.sluice.internal.cdi;

import dev.sluice.LockNotAcquiredException;
import dev.sluice.internal.limit.InProcessRateLimitStore;
import dev.sluice.internal.redis.RedisConnector;
import dev.sluice.internal.runtime.SluiceRuntime;
import dev.sluice.test.RedisServer;
import jakarta.inject.Inject;
import org.jboss.weld.junit5.EnableWeld;
import org.jboss.weld.junit5.WeldInitiator;
import org.jboss.weld.junit5.WeldSetup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code @Locked} in Weld over a real Redis, and what happens when that Redis stops. */
@EnableWeld
class RedisLockedInterceptorTest {

    @RegisterExtension
    static RedisServer redis = RedisServer.standalone();

    private final SluiceRuntime runtime = SluiceRuntime.of(
            TestConfigs.of(Map.of("sluice.redis.uri", redis.uri(), "sluice.redis.timeout", "500ms")),
            new InProcessRateLimitStore(), RedisConnector.connect(redis.settings(Duration.ofMillis(500))));

    @WeldSetup
    WeldInitiator weld = WeldInitiator.from(WeldInitiator.createWeld()
                    .addBeanClasses(Tickets.class, Seats.class)
                    .addExtension(SluiceExtension.over(runtime)))
            .build();

    @Inject
    Tickets tickets;

    @AfterEach
    void closeRuntime() {
        runtime.close();
    }

    @Test
    void lockedMethodRunsUnderARedisLock() {
        assertThat(tickets.buy(5, 2)).isEqualTo(2);
        assertThat(redis.admin().exists("sluice:lock:{event:5}:fence")).isTrue();
        assertThat(redis.admin().exists("sluice:lock:{event:5}")).isFalse();
    }

    @Test
    void withRedisStoppedTheMethodDoesNotRunAndFailsWithinItsWaitTime() {
        assertThat(tickets.buy(6, 1)).isEqualTo(1);
        redis.process().orElseThrow().stop();

        assertThatThrownBy(() -> tickets.buy(6, 1)).isInstanceOfSatisfying(LockNotAcquiredException.class, e -> {
            assertThat(e.key()).isEqualTo("event:6");
            assertThat(e.getCause()).isNotNull();
            assertThat(e.waited()).isLessThan(Duration.ofSeconds(5));
        });
        assertThat(tickets.sold(6)).isEqualTo(1);
    }
}
