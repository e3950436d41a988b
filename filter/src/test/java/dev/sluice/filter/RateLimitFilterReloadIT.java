package dev.sluice.filter;

import dev.sluice.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;

import static dev.sluice.filter.Descriptors.contextParams;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A running application picks up a changed limit without a redeploy: on its {@code sluice.config.refresh} and on the
 * JMX operation {@code reload()}. The change is made where the fallback chain reads it live, a system property (the
 * context-params of a deployed application cannot change); a bad value keeps the limit in force.
 */
class RateLimitFilterReloadIT {

    @RegisterExtension
    static final RedisServer REDIS = RedisServer.standalone();

    private static final String BURST = "sluice.limit.login.burst";
    private static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();

    @TempDir
    Path root;

    private WebApp app;

    @BeforeEach
    void resetResource() {
        ProtectedServlet.reset();
        System.clearProperty(BURST);
    }

    @AfterEach
    void stop() throws Exception {
        System.clearProperty(BURST);
        if (app != null) {
            app.close();
        }
    }

    private void start(String refresh) throws Exception {
        app = WebApp.start(root, contextParams(
                "sluice.redis.uri", REDIS.uri(),
                "sluice.config.refresh", refresh,
                "sluice.limit.login.rate", "5/1m",
                "sluice.limit.login.key", "header:X-Client",
                "sluice.limit.login.paths", "/login"), true);
    }

    /** Requests a fresh client gets admitted out of {@code attempts}. */
    private int admittedForANewClient(int attempts) throws Exception {
        String client = UUID.randomUUID().toString();
        int admitted = 0;
        for (int i = 0; i < attempts; i++) {
            if (app.get("/login", "X-Client", client).statusCode() == 200) {
                admitted++;
            }
        }
        return admitted;
    }

    private static ObjectName configBean() throws Exception {
        Set<ObjectName> names = JMX.queryNames(new ObjectName("dev.sluice:type=Config,*"), null);
        assertThat(names).as("one application in this JVM").hasSize(1);
        return names.iterator().next();
    }

    @Test
    void aChangedBurstIsAppliedWithinOneRefreshPeriod() throws Exception {
        start("200ms");
        assertThat(admittedForANewClient(8)).isEqualTo(5);

        System.setProperty(BURST, "2");

        await().atMost(Duration.ofSeconds(10)).until(() -> admittedForANewClient(3) == 2);
        assertThat(admittedForANewClient(8)).isEqualTo(2);
    }

    @Test
    void theJmxOperationAppliesAChangeAndRefusesABadOne() throws Exception {
        start("0");
        ObjectName bean = configBean();

        System.setProperty(BURST, "3");
        Object summary = JMX.invoke(bean, "reload", new Object[0], new String[0]);
        assertThat(summary).asString().contains("servlet filter", "login: rate 5/1m -> 5/1m burst 3");
        assertThat(admittedForANewClient(8)).isEqualTo(3);

        System.setProperty(BURST, "three");
        Object refused = JMX.invoke(bean, "reload", new Object[0], new String[0]);
        assertThat(refused).asString().contains("refused", BURST, "three");
        assertThat(admittedForANewClient(8)).as("the limit in force stays").isEqualTo(3);
        assertThat(JMX.getAttribute(bean, "RefusedReloads")).isEqualTo(1L);
        assertThat(JMX.getAttribute(bean, "AppliedReloads")).isEqualTo(1L);
    }
}
