package dev.sluice.internal.cdi;

import dev.sluice.test.LogCapture;
import jakarta.enterprise.inject.Instance;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.Readiness;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a deployment costs and logs because of Sluice's extension: no observer that the container must notify for
 * every type of the application (Weld reports one as WELD-000411 on every start), while the readiness check is
 * still registered exactly once, whether the container discovered it in sluice-core's archive or not.
 */
class QuietStartupTest {

    @RegisterExtension
    LogCapture logs = new LogCapture();

    private static Weld weld(Class<?>... beanClasses) {
        return new Weld().disableDiscovery().addBeanClasses(beanClasses)
                .addExtension(new SluiceExtension(cl -> TestConfigs.of(Map.of())));
    }

    @Test
    void startingAnApplicationLogsNoObserverOfEveryAnnotatedType() {
        try (WeldContainer container = weld(Seats.class).initialize()) {
            assertThat(container.select(Seats.class).get().reserve(1)).isEqualTo(1);
        }

        assertThat(logs.texts()).noneMatch(text -> text.contains("WELD-000411"));
    }

    @Test
    void aHealthCheckTheContainerDiscoveredIsNotAddedAgain() {
        try (WeldContainer container = weld(Seats.class, SluiceRedisHealthCheck.class).initialize()) {
            Instance<HealthCheck> checks = container.select(HealthCheck.class, Readiness.Literal.INSTANCE);
            assertThat(checks.isResolvable()).isTrue();
            assertThat(checks.get().call().getName()).isEqualTo(SluiceRedisHealthCheck.NAME);
        }
    }

    @Test
    void theExtensionAddsTheHealthCheckWhereTheContainerDidNotDiscoverIt() {
        try (WeldContainer container = weld(Seats.class).initialize()) {
            Instance<HealthCheck> checks = container.select(HealthCheck.class, Readiness.Literal.INSTANCE);
            assertThat(checks.isResolvable()).isTrue();
        }
    }
}
