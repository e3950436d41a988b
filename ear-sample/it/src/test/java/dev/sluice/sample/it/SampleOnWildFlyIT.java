package dev.sluice.sample.it;

import dev.sluice.servers.ConcurrencyScenario;
import dev.sluice.servers.Http;
import dev.sluice.servers.SampleApp;
import dev.sluice.servers.SessionBeanScenarios;
import dev.sluice.servers.ServerProperties;
import dev.sluice.test.RateLimitAssertions;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import dev.sluice.internal.config.RedisSettings;
import org.awaitility.core.ConditionTimeoutException;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.as.controller.client.ModelControllerClient;
import org.jboss.dmr.ModelNode;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample on WildFly (managed by Arquillian, {@code standalone.xml} with MicroProfile Health, see {@code src/test/wildfly-cli}), its three
 * packagings deployed side by side. Users alice and bob come from the application realm's
 * properties files that the build copies into the server.
 */
class SampleOnWildFlyIT extends SessionBeanScenarios {

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

    /** Where the server's MicroProfile Telemetry exports (OTLP endpoint in {@code arquillian.xml}); up before it boots. */
    @RegisterExtension
    @Order(2)
    static final OtlpReceiver otlp = OtlpReceiver.fromSystemProperty();

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
     * {@code sluice.limit.exempt-staff.exempt=principal:bob} on an URL without a security constraint: WildFly
     * authenticates the credentials a client sends on any URL ({@code proactive-authentication}, on by default),
     * so bob is known to Sluice's JAX-RS filter and never charged; the bucket of his address stays full for the
     * others.
     */
    @Test
    @Order(41)
    void anExemptPrincipalIsNeverCharged() {
        org.junit.jupiter.api.Assertions.assertAll(apps().stream().map(app -> () -> {
            URI staff = app.uri("api/exempt/staff");
            for (int i = 0; i < 5; i++) {
                HttpResponse<String> bob = Http.get(staff, "bob", "bob-pw");
                assertThat(bob.body()).as("%s", app).isEqualTo("staff bob\n");
                assertThat(bob.headers().firstValue("RateLimit")).as("%s: bob is exempt", app).isEmpty();
            }
            HttpResponse<String> anonymous = Http.get(staff);
            assertThat(RateLimitAssertions.assertAllowed(anonymous, "exempt-staff", 2, 60).remaining())
                    .as("%s: the bucket bob's requests would have used is full", app).isEqualTo(1);
            HttpResponse<String> alice = Http.get(staff, "alice", "alice-pw");
            assertThat(alice.body()).as("%s", app).isEqualTo("staff alice\n");
            assertThat(RateLimitAssertions.assertAllowed(alice, "exempt-staff", 2, 60).remaining()).isZero();
            RateLimitAssertions.assertTooManyRequests(Http.get(staff, "alice", "alice-pw"), "exempt-staff", 2, 60);
            assertThat(Http.get(staff, "bob", "bob-pw").statusCode()).as("%s: still exempt", app).isEqualTo(200);
        }));
    }

    /**
     * Live reconfiguration (issue 19): the server runs with {@code -Dsluice.config.refresh=1s}
     * ({@code arquillian.xml}). A system property added through WildFly's management API overrides the sample's
     * {@code sluice.limit.api.rate} in MicroProfile Config (ordinal 400 over 100), and every packaging answers with
     * the new limit within one refresh period of the operation, without a redeploy; removing it brings the
     * sample's own limit back the same way.
     */
    @Test
    @Order(150)
    void aRateChangedThroughTheManagementApiAppliesWithinOneRefreshPeriod() throws Exception {
        try (ModelControllerClient management = ModelControllerClient.Factory.create("127.0.0.1",
                ServerProperties.WILDFLY_MANAGEMENT_PORT + ServerProperties.wildflyPortOffset())) {
            try {
                long changedAt = System.nanoTime();
                execute(management, systemProperty("add", "2/1m"));
                awaitApiQuota(2, REFRESH.plus(MARGIN));
                Duration toApplied = Duration.ofNanos(System.nanoTime() - changedAt);
                System.out.println("sluice.limit.api.rate=2/1m in force in every packaging " + toApplied.toMillis()
                        + " ms after the management operation (sluice.config.refresh " + REFRESH.toMillis() + " ms)");
            } finally {
                execute(management, systemProperty("remove", null));
            }
            awaitApiQuota(5, REFRESH.plus(MARGIN));
        }
    }

    private static final Duration REFRESH = Duration.ofSeconds(1);
    private static final String API_RATE = "sluice.limit.api.rate";

    /** {@code /system-property=sluice.limit.api.rate:<operation>(value=<value>)}. */
    private static ModelNode systemProperty(String operation, String value) {
        ModelNode op = new ModelNode();
        op.get("operation").set(operation);
        op.get("address").add("system-property", API_RATE);
        if (value != null) {
            op.get("value").set(value);
        }
        return op;
    }

    private static void execute(ModelControllerClient management, ModelNode op) throws java.io.IOException {
        ModelNode result = management.execute(op);
        assertThat(result.get("outcome").asString()).as("%s -> %s", op, result).isEqualTo("success");
    }

    /** Polls {@code api/hello} of every packaging until its {@code RateLimit-Policy} announces {@code quota}. */
    private void awaitApiQuota(int quota, Duration atMost) {
        String expected = "\"api\";q=" + quota + ";";
        AtomicReference<String> last = new AtomicReference<>();
        for (SampleApp app : apps()) {
            try {
                await().atMost(atMost).pollDelay(Duration.ZERO).pollInterval(POLL).until(() -> {
                    HttpResponse<String> response = Http.get(app.uri("api/hello"));
                    String policy = response.headers().firstValue("RateLimit-Policy").orElse("");
                    last.set(response.statusCode() + " " + policy);
                    return policy.startsWith(expected);
                });
            } catch (ConditionTimeoutException e) {
                throw new AssertionError(app + " did not announce " + expected + " within " + atMost
                        + "; last answer: " + last.get(), e);
            }
        }
    }

    /**
     * Issue 30: with WildFly's {@code opentelemetry} and {@code microprofile-telemetry} subsystems (added by
     * {@code src/test/wildfly-cli}) and {@code otel.sdk.disabled=false} (a system property, read through MicroProfile
     * Config; {@code arquillian.xml}), every packaging publishes its metrics through the {@code OpenTelemetry} bean,
     * and the server's own OTLP exporter sends them here every second. Each 429 is counted once, as
     * {@code sluice.ratelimit.requests} with {@code sluice.ratelimit.result=denied}; the earlier box-office tests'
     * lock waits and holds arrive as histograms in seconds.
     */
    @Test
    @Order(190)
    void metricsReachAnOpenTelemetryCollectorThroughTheServersMicroProfileTelemetry() {
        awaitFreshExports();
        Map<SampleApp, Long> before = new LinkedHashMap<>();
        Map<SampleApp, Integer> refused = new LinkedHashMap<>();
        for (SampleApp app : apps()) {
            before.put(app, deniedExported(app));
            int n = 0;
            for (int i = 0; i < 6; i++) {               // api is 5/1m: at least one of six is refused
                n += Http.get(app.uri("api/hello")).statusCode() == 429 ? 1 : 0;
            }
            assertThat(n).as("%s: 429s of six requests", app).isPositive();
            refused.put(app, n);
        }
        try {
            await().atMost(Duration.ofSeconds(20)).pollInterval(POLL).until(() -> apps().stream()
                    .allMatch(app -> deniedExported(app) >= before.get(app) + refused.get(app)));
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("the refusals did not reach the OTLP receiver within 20 s (" + otlp.exports()
                    + " metric exports arrived): " + refused + " after " + before + "\n" + otlp.dump("dev.sluice"), e);
        }
        System.out.println("OpenTelemetry metrics of Sluice as WildFly exported them (OTLP, " + otlp.exports()
                + " exports):\n" + otlp.dump("dev.sluice"));

        for (SampleApp app : apps()) {
            OtlpReceiver.Point denied = point(app, "sluice.ratelimit.requests",
                    Map.of("sluice.ratelimit.policy", "api", "sluice.ratelimit.result", "denied"));
            assertThat((long) denied.value()).as("%s: each refusal counted once", app)
                    .isEqualTo(before.get(app) + refused.get(app));
            assertThat(denied.unit()).isEqualTo("{request}");
            assertThat(denied.resource()).as("%s: WildFly names the service after the deployment", app)
                    .containsKey("service.name");
            assertThat(point(app, "sluice.ratelimit.requests",
                    Map.of("sluice.ratelimit.policy", "api", "sluice.ratelimit.result", "allowed")).value())
                    .as("%s", app).isPositive();
            assertThat(point(app, "sluice.redis.reachable", Map.of()).value()).as("%s", app).isEqualTo(1);

            OtlpReceiver.Point waits = point(app, "sluice.lock.wait_time", Map.of("sluice.lock.name", "BoxOffice.sell"));
            OtlpReceiver.Point holds = point(app, "sluice.lock.hold_time", Map.of("sluice.lock.name", "BoxOffice.sell"));
            assertThat(waits.unit()).isEqualTo("s");
            assertThat(waits.count()).as("%s: the box office's sales, each one acquisition", app)
                    .isGreaterThanOrEqualTo(20);
            assertThat(holds.count()).as("%s", app).isEqualTo(waits.count());
            assertThat(holds.sum() / holds.count()).as("%s: mean hold in seconds", app).isBetween(0.0, 60.0);
            assertThat(holds.sum()).as("%s: twenty holds take some time", app).isPositive();
            assertThat(point(app, "sluice.lock.timeouts", Map.of("sluice.lock.name", "BoxOffice.sellWithoutWaiting"))
                    .value()).as("%s: the refused sale without waiting", app).isGreaterThanOrEqualTo(1);
        }
    }

    /** Until every packaging exported twice more, so the receiver holds what the server counts now. */
    private void awaitFreshExports() {
        int from = otlp.exports();
        await().atMost(Duration.ofSeconds(20)).pollInterval(POLL)
                .until(() -> otlp.exports() >= from + 2 * apps().size());
    }

    /** What the receiver last got for {@code api}'s refusals in {@code app}; 0 before the first. */
    private long deniedExported(SampleApp app) {
        return otlp.series("sluice.ratelimit.requests", Map.of("sluice.ratelimit.policy", "api",
                        "sluice.ratelimit.result", "denied")).stream()
                .filter(p -> isOf(app, p)).mapToLong(p -> (long) p.value()).sum();
    }

    private OtlpReceiver.Point point(SampleApp app, String metric, Map<String, String> attributes) {
        List<OtlpReceiver.Point> points = otlp.series(metric, attributes).stream().filter(p -> isOf(app, p)).toList();
        assertThat(points).as("%s: %s%s among\n%s", app, metric, attributes, otlp.dump("dev.sluice")).hasSize(1);
        assertThat(points.get(0).scope()).isEqualTo("dev.sluice");
        return points.get(0);
    }

    /** {@code sluice.app} of {@code app}: its deployment ({@code deployment.sample-plain.war}; in the EAR, its WAR). */
    private static boolean isOf(SampleApp app, OtlpReceiver.Point point) {
        String id = point.attributes().getOrDefault("sluice.app", "");
        String deployment = "deployment." + app.keyPrefix() + (app.keyPrefix().equals("sample") ? ".ear" : ".war");
        return id.equals(deployment) || id.startsWith(deployment + ".");
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
