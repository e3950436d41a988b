package dev.sluice.internal.cdi;

import dev.sluice.internal.runtime.SluiceRuntime;
import dev.sluice.test.LogCapture;
import dev.sluice.test.RedisServer;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.jboss.weld.junit5.EnableWeld;
import org.jboss.weld.junit5.WeldInitiator;
import org.jboss.weld.junit5.WeldSetup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.Map;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code sluice-redis} readiness check in Weld, found the way MicroProfile Health implementations find
 * checks ({@code @Readiness HealthCheck} beans), against a real Redis that stops, hangs and comes back.
 */
@EnableWeld
class RedisHealthCheckTest {

    private static final Duration TIMEOUT = Duration.ofMillis(500);

    @RegisterExtension
    static RedisServer redis = RedisServer.standalone();

    @RegisterExtension
    LogCapture logs = new LogCapture();

    private final SluiceRuntime runtime = SluiceRuntime.start(TestConfigs.of(Map.of(
            "sluice.redis.uri", redis.uri(), "sluice.redis.timeout", TIMEOUT.toMillis() + "ms")), "health", null);

    @WeldSetup
    WeldInitiator weld = WeldInitiator.from(WeldInitiator.createWeld()
                    .addBeanClasses(Seats.class)
                    .addExtension(SluiceExtension.over(runtime)))
            .build();

    @Inject
    @Readiness
    HealthCheck check;

    @AfterEach
    void closeRuntime() {
        runtime.close();
    }

    @Test
    void upWithTheModeWhileRedisAnswers() {
        HealthCheckResponse response = check.call();

        assertThat(response.getName()).isEqualTo("sluice-redis");
        assertThat(response.getStatus()).isEqualTo(HealthCheckResponse.Status.UP);
        assertThat(response.getData().orElseThrow()).containsEntry("mode", "standalone").containsEntry("app", "health")
                .doesNotContainKey("error");
    }

    @Test
    void downWithinTheTimeoutOnceRedisStopsAndUpAgainWhenItRestarts() {
        redis.assumeControllable();
        assertThat(check.call().getStatus()).isEqualTo(HealthCheckResponse.Status.UP);

        redis.stop();
        long started = System.nanoTime();
        HealthCheckResponse down = check.call();
        Duration took = Duration.ofNanos(System.nanoTime() - started);

        assertThat(down.getStatus()).isEqualTo(HealthCheckResponse.Status.DOWN);
        assertThat(took).isLessThanOrEqualTo(TIMEOUT);
        assertThat(down.getData().orElseThrow()).containsEntry("mode", "standalone");
        assertThat((String) down.getData().orElseThrow().get("error")).contains("Connection refused");

        redis.start();
        assertThat(check.call().getStatus()).isEqualTo(HealthCheckResponse.Status.UP);
        assertThat(logs.records(Level.WARNING, "dev.sluice").stream().map(logs::text)
                .filter(t -> t.contains("(app health): Redis")).toList())
                .hasSize(2).anyMatch(t -> t.contains("does not answer")).anyMatch(t -> t.contains("answers again"));
    }

    @Test
    void downAfterOneTimeoutWhenRedisHangs() {
        redis.assumeControllable();
        assertThat(check.call().getStatus()).isEqualTo(HealthCheckResponse.Status.UP);

        redis.pause();
        try {
            long started = System.nanoTime();
            HealthCheckResponse down = check.call();
            Duration took = Duration.ofNanos(System.nanoTime() - started);

            assertThat(down.getStatus()).isEqualTo(HealthCheckResponse.Status.DOWN);
            // One socket timeout, not retried: a hung Redis must not hold the health endpoint twice as long.
            assertThat(took).isGreaterThanOrEqualTo(TIMEOUT.dividedBy(2)).isLessThan(TIMEOUT.multipliedBy(2));
        } finally {
            redis.resume();
        }
        assertThat(check.call().getStatus()).isEqualTo(HealthCheckResponse.Status.UP);
    }
}
