package dev.sluice.sample.it;

import dev.sluice.servers.ConcurrencyScenario;
import dev.sluice.servers.Http;
import dev.sluice.servers.SampleApp;
import dev.sluice.servers.SampleScenarios;
import dev.sluice.servers.ServerProperties;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import dev.sluice.internal.config.RedisSettings;
import org.awaitility.core.ConditionTimeoutException;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.dmr.ModelNode;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample on WildFly (managed by Arquillian, {@code standalone-microprofile.xml}), its three
 * packagings deployed side by side. Users alice and bob come from the application realm's
 * properties files that the build copies into the server.
 */
class SampleOnWildFlyIT extends SampleScenarios {

    /**
     * The sample sets no {@code sluice.redis.timeout} (neither its MicroProfile Config files nor
     * {@code arquillian.xml}), so every packaging runs with the default.
     */
    private static final Duration REDIS_TIMEOUT = RedisSettings.DEFAULT_TIMEOUT;

    /**
     * Allowance on top of the timeout for the test's own side of the measurement: the poll interval
     * (100 ms), one {@code /health/ready} round trip through WildFly's management interface, and
     * scheduling on a loaded build machine. A stopped Redis refuses connections, so the probe itself
     * should fail at once; the allowance only keeps a slow machine from failing the test.
     */
    private static final Duration MARGIN = Duration.ofSeconds(1);

    private static final Duration POLL = Duration.ofMillis(100);

    @RegisterExtension
    @Order(3)
    static final ArquillianExtension arquillian = new ArquillianExtension();

    @Deployment(name = "ear", testable = false, order = 1)
    static EnterpriseArchive ear() {
        return Deployments.ear();
    }

    @Deployment(name = "plain-war", testable = false, order = 2)
    static WebArchive plainWar() {
        return Deployments.plainWar();
    }

    @Deployment(name = "bundle-war", testable = false, order = 3)
    static WebArchive bundleWar() {
        return Deployments.bundleWar();
    }

    @Override
    protected List<SampleApp> apps() {
        URI root = URI.create("http://127.0.0.1:"
                + (ServerProperties.WILDFLY_HTTP_PORT + ServerProperties.wildflyPortOffset()) + "/");
        return List.of(SampleApp.ear(root), SampleApp.plainWar(root), SampleApp.bundleWar(root));
    }

    /** At most two requests of a client in flight under {@code conc-slow}, in every packaging. */
    @Test
    @Order(150)
    void concurrencyLimitHoldsTwoRequestsInFlightAndRefusesTheThird() {
        org.junit.jupiter.api.Assertions.assertAll(apps().stream().map(
                app -> (org.junit.jupiter.api.function.Executable) () -> ConcurrencyScenario.check(app)));
    }

    /**
     * Issue 8's acceptance: WildFly's readiness endpoint (management interface, MicroProfile Health)
     * reports {@code sluice-redis} DOWN within {@code sluice.redis.timeout} of Redis stopping, and UP
     * again once it is back, with the endpoint's HTTP status following (503 / 200). Every packaging
     * carries the check, so all of them are expected, and all must flip.
     *
     * <p>Last of all tests (it stops Redis under the running server); Redis is started again in any case.
     */
    @Test
    @Order(200)
    void readinessFollowsRedisDownAndUp() {
        redis.assumeControllable();
        URI ready = URI.create("http://127.0.0.1:"
                + (ServerProperties.WILDFLY_MANAGEMENT_PORT + ServerProperties.wildflyPortOffset()) + "/health/ready");

        Health before = Health.of(Http.get(ready));
        assertThat(before.sluiceChecks()).as("sluice-redis checks, one per packaging: %s", before)
                .hasSize(apps().size())
                .allSatisfy(check -> {
                    assertThat(check.get("status").asString()).as("%s", check).isEqualTo("UP");
                    assertThat(check.get("data", "mode").asString()).as("%s", check).isEqualTo("standalone");
                });
        assertThat(before.httpStatus()).as("%s", before).isEqualTo(200);

        boolean stopped = false;
        try {
            long stopAt = System.nanoTime();
            redis.stop();
            stopped = true;
            Health down = awaitAll("DOWN", REDIS_TIMEOUT.plus(MARGIN));
            Duration toDown = Duration.ofNanos(System.nanoTime() - stopAt);
            System.out.println("sluice-redis DOWN " + toDown.toMillis() + " ms after redis.stop() was called "
                    + "(sluice.redis.timeout " + REDIS_TIMEOUT.toMillis() + " ms): " + down);
            assertThat(down.httpStatus()).as("%s", down).isEqualTo(503);
            assertThat(down.sluiceChecks()).allSatisfy(check ->
                    assertThat(check.get("data").hasDefined("error")).as("%s", check).isTrue());
            assertThat(toDown).isLessThanOrEqualTo(REDIS_TIMEOUT.plus(MARGIN));

            long startAt = System.nanoTime();
            redis.start();
            stopped = false;
            Health up = awaitAll("UP", Duration.ofSeconds(30));
            Duration toUp = Duration.ofNanos(System.nanoTime() - startAt);
            System.out.println("sluice-redis UP " + toUp.toMillis() + " ms after redis.start() was called: " + up);
            assertThat(up.httpStatus()).as("%s", up).isEqualTo(200);
        } finally {
            if (stopped) {
                redis.start();
            }
        }
    }

    /** Polls {@code /health/ready} until every {@code sluice-redis} check has the status. */
    private Health awaitAll(String status, Duration atMost) {
        URI ready = URI.create("http://127.0.0.1:"
                + (ServerProperties.WILDFLY_MANAGEMENT_PORT + ServerProperties.wildflyPortOffset()) + "/health/ready");
        AtomicReference<Health> last = new AtomicReference<>();
        try {
            await().atMost(atMost).pollDelay(Duration.ZERO).pollInterval(POLL).until(() -> {
                Health health = Health.of(Http.get(ready));
                last.set(health);
                return health.sluiceChecks().size() == apps().size()
                        && health.sluiceChecks().stream().allMatch(c -> status.equals(c.get("status").asString()));
            });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("not every sluice-redis check " + status + " within " + atMost
                    + "; last answer: " + last.get(), e);
        }
        return last.get();
    }

    /** One answer of the health endpoint: its HTTP status and the JSON body (parsed with WildFly's DMR). */
    private record Health(int httpStatus, ModelNode body) {

        static Health of(HttpResponse<String> response) {
            return new Health(response.statusCode(), ModelNode.fromJSONString(response.body()));
        }

        List<ModelNode> sluiceChecks() {
            return body.get("checks").asList().stream()
                    .filter(check -> "sluice-redis".equals(check.get("name").asString()))
                    .toList();
        }

        @Override
        public String toString() {
            return httpStatus + " " + body.toJSONString(true);
        }
    }
}
