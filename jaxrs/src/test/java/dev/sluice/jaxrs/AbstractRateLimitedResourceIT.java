package dev.sluice.jaxrs;

import dev.sluice.SluiceConfigException;
import dev.sluice.jaxrs.broken.UnknownPolicyResource;
import dev.sluice.test.RateLimitAssertions;
import dev.sluice.test.RedisServer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.sluice.test.RateLimitAssertions.assertAllowed;
import static dev.sluice.test.RateLimitAssertions.assertTooManyRequests;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The JAX-RS scenarios, run unchanged on every runtime (one subclass each): an application that lists its
 * classes, {@link RateLimitFeature} among them, deployed in a real HTTP server, called over HTTP and limited
 * in a real Redis ({@link RedisServer}, emptied before each test).
 * Responses are checked with {@link RateLimitAssertions}, the helper the servlet filter's tests use, so
 * both answer a client identically.
 */
abstract class AbstractRateLimitedResourceIT {

    @RegisterExtension
    static final RedisServer REDIS = RedisServer.standalone();

    private static final AtomicInteger PREFIXES = new AtomicInteger();
    static final long HOUR = 3600;

    /**
     * HTTP/1.1: the JDK client otherwise asks cleartext servers to upgrade to h2c, and Grizzly 4.0 then
     * drops the Content-Type of its answer (eclipse-ee4j/glassfish-grizzly#2192).
     */
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private JaxrsContainer.Deployment deployment;

    /** The runtime under test. */
    abstract JaxrsContainer container();

    @AfterEach
    void undeploy() {
        if (deployment != null) {
            deployment.close();
        }
    }

    @Test
    void methodAnnotationAddsToClassAnnotation() throws Exception {
        deployScenarios();

        assertThat(assertAllowed(get("class-limited/stricter"), "per-method", 2, HOUR).remaining()).isEqualTo(1);
        assertThat(assertAllowed(get("class-limited/stricter"), "per-method", 2, HOUR).remaining()).isZero();
        assertTooManyRequests(get("class-limited/stricter"), "per-method", 2, HOUR);

        // per-class was charged by both admitted calls above (the refused one charged nothing)
        assertThat(assertAllowed(get("class-limited/plain"), "per-class", 4, HOUR).remaining()).isEqualTo(1);
        assertThat(assertAllowed(get("class-limited/plain"), "per-class", 4, HOUR).remaining()).isZero();
        assertTooManyRequests(get("class-limited/plain"), "per-class", 4, HOUR);
        assertTooManyRequests(get("class-limited/stricter"), "per-method", 2, HOUR);
    }

    @Test
    void repeatedAnnotationsAreAllEnforced() throws Exception {
        deployScenarios();

        // the headers describe the policy with the fewest tokens left: "first" (2/1h)
        assertThat(assertAllowed(get("three"), "first", 2, HOUR).remaining()).isEqualTo(1);
        assertThat(assertAllowed(get("three"), "first", 2, HOUR).remaining()).isZero();
        HttpResponse<String> denied = get("three");
        assertTooManyRequests(denied, "first", 2, HOUR);
        assertThat(RateLimitAssertions.assertProblem(denied, 429).get("violated-policies"))
                .isEqualTo(java.util.List.of("first"));
    }

    @Test
    void threePoliciesCostOneEvalshaPerRequest() throws Exception {
        deployScenarios();
        get("free");
        REDIS.resetStats();

        for (int i = 0; i < 3; i++) {
            get("three");
        }
        get("free");

        assertThat(REDIS.commandCount("evalsha")).as("one EVALSHA per limited request, none for the free one")
                .isEqualTo(3);
        assertThat(REDIS.commandCount("eval")).isZero();
    }

    @Test
    void undeployingClosesTheRedisConnections() throws Exception {
        deployScenarios();
        assertAllowed(get("three"), "first", 2, HOUR);
        assertThat(REDIS.clientCount("sluice")).isPositive();

        deployment.close();
        deployment = null;

        await().atMost(java.time.Duration.ofSeconds(5)).until(() -> REDIS.clientCount("sluice") == 0);
    }

    @Test
    void anUnreachableRedisIsAnswered503WhenConfiguredToDeny() throws Exception {
        REDIS.assumeControllable();
        Map<String, String> deny = new java.util.HashMap<>(settings());
        deny.put("sluice.on-redis-failure", "deny");
        deny.put("sluice.redis.timeout", "500ms");
        deployment = container().deploy(new TestApplication(Resources.ThreePolicies.class, RateLimitFeature.class)
                .properties(deny));
        assertAllowed(get("three"), "first", 2, HOUR);

        REDIS.stop();

        RateLimitAssertions.assertServiceUnavailable(get("three"));
    }

    @Test
    void principalKeysGiveEachAuthenticatedUserABucket() throws Exception {
        deployScenarios();

        assertThat(assertAllowed(get("me", "alice"), "per-user", 2, HOUR).remaining()).isEqualTo(1);
        assertThat(assertAllowed(get("me", "alice"), "per-user", 2, HOUR).remaining()).isZero();
        assertTooManyRequests(get("me", "alice"), "per-user", 2, HOUR);

        assertThat(assertAllowed(get("me", "bob"), "per-user", 2, HOUR).remaining()).isEqualTo(1);
        // anonymous requests fall back to the client address: a bucket of their own
        assertThat(assertAllowed(get("me"), "per-user", 2, HOUR).remaining()).isEqualTo(1);
    }

    @Test
    void pathParameterKeysGiveEachItemABucket() throws Exception {
        deployScenarios();

        assertAllowed(get("items/1"), "per-item", 2, HOUR);
        assertAllowed(get("items/1"), "per-item", 2, HOUR);
        assertTooManyRequests(get("items/1"), "per-item", 2, HOUR);

        assertThat(assertAllowed(get("items/2"), "per-item", 2, HOUR).remaining()).isEqualTo(1);
        assertThat(assertAllowed(get("items/%7Bbraces%7D%20and%20spaces"), "per-item", 2, HOUR).remaining())
                .isEqualTo(1);
    }

    @Test
    void configurationWinsOverInlineDefaults() throws Exception {
        deployScenarios();

        // inline 100/1h, configured 2/1h; the inline key (global) still applies since config has no key
        assertAllowed(get("tuned"), "tuned", 2, HOUR);
        assertAllowed(get("tuned", "alice"), "tuned", 2, HOUR);
        assertTooManyRequests(get("tuned", "bob"), "tuned", 2, HOUR);
    }

    @Test
    void aConfiguredKeyAloneOverridesTheAnnotationsKeyAndKeepsItsRate() throws Exception {
        Map<String, String> keyOnly = new java.util.HashMap<>(settings());
        keyOnly.put("sluice.limit.keyed.key", "header:X-Tenant");
        deployment = container().deploy(new TestApplication(Resources.Keyed.class, RateLimitFeature.class)
                .properties(keyOnly));

        assertAllowed(get("keyed", Map.of("X-Tenant", "acme")), "keyed", 2, HOUR);
        assertAllowed(get("keyed", Map.of("X-Tenant", "acme")), "keyed", 2, HOUR);
        assertTooManyRequests(get("keyed", Map.of("X-Tenant", "acme")), "keyed", 2, HOUR);
        assertThat(assertAllowed(get("keyed", Map.of("X-Tenant", "globex")), "keyed", 2, HOUR).remaining())
                .as("another tenant, another bucket").isEqualTo(1);
    }

    @Test
    void headerModeComesFromTheApplicationsSettings() throws Exception {
        Map<String, String> legacy = new java.util.HashMap<>(settings());
        legacy.put("sluice.headers", "legacy");
        deployment = container().deploy(new TestApplication(Resources.Tuned.class, RateLimitFeature.class)
                .properties(legacy));

        HttpResponse<String> response = get("tuned");
        assertThat(RateLimitAssertions.assertLegacyHeaders(response, 2)).isEqualTo(1);
        assertThat(response.headers().firstValue("RateLimit")).isEmpty();
    }

    @Test
    void sluiceExceptionsFromResourcesBecomeProblemAnswersInsteadOfA500() throws Exception {
        deployment = container().deploy(new TestApplication(Resources.Throwing.class, RateLimitFeature.class)
                .properties(settings()));

        HttpResponse<String> lock = get("throws/lock");
        assertThat(RateLimitAssertions.assertProblem(lock, 503)).containsEntry("retryAfter", 1L)
                .containsEntry("detail", "A resource this request needs is busy; retry after 1 second.");
        assertThat(lock.headers().firstValue("Retry-After")).contains("1");
        assertThat(lock.body()).as("no lock key in the body").doesNotContain("secret");

        HttpResponse<String> permit = get("throws/permit");
        assertThat((String) RateLimitAssertions.assertProblem(permit, 503).get("detail"))
                .as("Redis unreachable, not busy").contains("cannot be reached").doesNotContain("busy");
        assertThat(permit.headers().firstValue("Retry-After")).as("until the breaker tries Redis again").contains("3");

        assertTooManyRequests(get("throws/rate"), "export", 5, 60);

        HttpResponse<String> lost = get("throws/lost");
        assertThat((String) RateLimitAssertions.assertProblem(lost, 500).get("detail")).contains("lock").contains("lost");
        assertThat(lost.body()).doesNotContain("secret").doesNotContain("fencing");
    }

    @Test
    void anApplicationsOwnExceptionMapperWinsOverSluices() throws Exception {
        deployment = container().deploy(new TestApplication(Resources.Throwing.class, Resources.OwnLockMapper.class,
                RateLimitFeature.class).properties(settings()));

        HttpResponse<String> lock = get("throws/lock");
        assertThat(lock.statusCode()).isEqualTo(409);
        assertThat(lock.body()).isEqualTo("busy, says the application");
        RateLimitAssertions.assertProblem(get("throws/lost"), 500);
    }

    @Test
    void methodsWithoutPoliciesAreLeftAlone() throws Exception {
        deployScenarios();

        for (int i = 0; i < 5; i++) {
            HttpResponse<String> response = get("free");
            assertThat(response.statusCode()).isEqualTo(200);
            RateLimitAssertions.assertNoRateLimitHeaders(response);
        }
    }

    @Test
    void withoutTheFeatureNothingIsLimited() throws Exception {
        deployment = container().deploy(new TestApplication(Resources.ClassLimited.class).properties(settings()));

        for (int i = 0; i < 3; i++) {
            HttpResponse<String> response = get("class-limited/stricter");
            assertThat(response.statusCode()).isEqualTo(200);
            RateLimitAssertions.assertNoRateLimitHeaders(response);
        }
    }

    @Test
    void deploymentFailsNamingTheMethodAndThePolicy() {
        TestApplication broken = new TestApplication(UnknownPolicyResource.class, RateLimitFeature.class)
                .properties(settings());

        assertThatThrownBy(() -> deployment = container().deploy(broken))
                .satisfies(e -> assertThat(rootSluiceConfigException(e))
                        .as("a SluiceConfigException in the cause chain of %s", e)
                        .isNotNull()
                        .satisfies(c -> assertThat(c.getMessage())
                                .contains("dev.sluice.jaxrs.broken.UnknownPolicyResource#nope()")
                                .contains("\"nope\"")
                                .contains("sluice.limit.nope.rate")));
    }

    /**
     * A running application picks up a changed rate on its {@code sluice.config.refresh}, without a redeploy; a bad
     * value is refused and the rate in force stays. The change is made in a system property, which every
     * configuration source reads live (application properties cannot change once deployed).
     */
    @Test
    void aChangedRateAppliesWithinOneRefreshPeriodAndABadOneIsRefused() throws Exception {
        String rateKey = "sluice.limit.per-method.rate";
        Map<String, String> settings = settings();
        settings.put("sluice.config.refresh", "200ms");
        try {
            deployment = container().deploy(new TestApplication(Resources.ClassLimited.class, RateLimitFeature.class)
                    .properties(settings));
            assertAllowed(get("class-limited/stricter"), "per-method", 2, HOUR);

            System.setProperty(rateKey, "1/1h");
            await().atMost(java.time.Duration.ofSeconds(10)).until(() -> get("class-limited/stricter").headers()
                    .firstValue("RateLimit-Policy").orElse("").contains("\"per-method\";q=1;"));
            assertTooManyRequests(get("class-limited/stricter"), "per-method", 1, HOUR);

            javax.management.MBeanServer jmx = java.lang.management.ManagementFactory.getPlatformMBeanServer();
            javax.management.ObjectName bean = jmx.queryNames(
                    new javax.management.ObjectName("dev.sluice:type=Config,*"), null).iterator().next();
            System.setProperty(rateKey, "1/fortnight");
            await().atMost(java.time.Duration.ofSeconds(10))
                    .until(() -> (Long) jmx.getAttribute(bean, "RefusedReloads") > 0);
            assertTooManyRequests(get("class-limited/stricter"), "per-method", 1, HOUR);
        } finally {
            System.clearProperty(rateKey);
        }
    }

    private void deployLoginAndTrial(String... more) throws Exception {
        Map<String, String> settings = new java.util.HashMap<>(settings());
        settings.put("sluice.limit.login-form.count", "401");
        settings.put("sluice.limit.trial.mode", "shadow");
        for (int i = 0; i < more.length; i += 2) {
            settings.put(more[i], more[i + 1]);
        }
        deployment = container().deploy(new TestApplication(Resources.LoginForm.class, Resources.Trial.class,
                RateLimitFeature.class).properties(settings));
    }

    /** An attribute of the policy's RateLimit MBean, summed over the applications deployed in this JVM now. */
    private static long jmx(String policy, String attribute) throws Exception {
        javax.management.MBeanServer server = java.lang.management.ManagementFactory.getPlatformMBeanServer();
        long sum = 0;
        for (javax.management.ObjectName name : server.queryNames(
                new javax.management.ObjectName("dev.sluice:type=RateLimit,name=" + policy + ",*"), null)) {
            sum += (Long) server.getAttribute(name, attribute);
        }
        return sum;
    }

    @Test
    void aShadowedPolicyNeverRefusesSendsNoHeadersAndCountsWouldBeRefusals() throws Exception {
        deployLoginAndTrial();
        for (int i = 0; i < 4; i++) {
            HttpResponse<String> response = get("trial");
            assertThat(response.statusCode()).isEqualTo(200);
            RateLimitAssertions.assertNoRateLimitHeaders(response);
        }
        assertThat(jmx("trial", "WouldDeny")).isEqualTo(3);
        assertThat(jmx("trial", "Denied")).isZero();
    }

    @Test
    void aLoginPolicyCountingFailuresIgnoresSuccessesAndRefusesTheFourthAttemptAfterThreeFailures() throws Exception {
        deployLoginAndTrial();
        REDIS.resetStats();
        for (int i = 0; i < 6; i++) {
            assertThat(assertAllowed(get("login-form?password=right"), "login-form", 3, HOUR).remaining())
                    .as("a successful login uses no token").isEqualTo(3);
        }
        assertThat(REDIS.commandCount("evalsha")).as("a check each, no charge").isEqualTo(6);
        for (int i = 0; i < 3; i++) {
            assertThat(get("login-form?password=wrong").statusCode()).isEqualTo(401);
        }
        assertThat(REDIS.commandCount("evalsha")).as("a check and a charge per failure").isEqualTo(12);
        assertTooManyRequests(get("login-form?password=right"), "login-form", 3, HOUR);
        assertThat(jmx("login-form", "ChargedAfterResponse")).isEqualTo(3);
    }

    @Test
    void aWebApplicationExceptionsStatusIsChargedLikeAReturnedOne() throws Exception {
        deployLoginAndTrial();
        for (int i = 0; i < 3; i++) {
            assertThat(get("login-form/unauthorized").statusCode()).isEqualTo(401);
        }
        assertTooManyRequests(get("login-form?password=right"), "login-form", 3, HOUR);
    }

    /**
     * Jakarta REST 3.1 and later (the runtimes tested here) map an exception the application does not map with a
     * default mapper (500), so response filters run and the 500 is charged. Earlier runtimes let it reach the
     * container, where no response filter runs: the gap docs/jaxrs.md describes.
     */
    @Test
    void anExceptionTheApplicationDoesNotMapIsChargedAsThe500OfTheDefaultMapper() throws Exception {
        deployLoginAndTrial("sluice.limit.login-form.count", "5xx");
        for (int i = 0; i < 3; i++) {
            assertThat(get("login-form/broken").statusCode()).isEqualTo(500);
        }
        // Jersey on Grizzly may write the mapped 500 before its response filters finish
        await().atMost(java.time.Duration.ofSeconds(5)).until(() -> jmx("login-form", "ChargedAfterResponse") == 3);
        assertTooManyRequests(get("login-form?password=right"), "login-form", 3, HOUR);
    }

    @Test
    void aConcurrencyLimitRefusesASecondRequestInFlightUntilTheFirstResponds() throws Exception {
        ConcurrencyResources.reset();
        deployScenarios();
        for (String path : java.util.List.of("conc/sync", "conc/async")) {
            java.util.concurrent.CompletableFuture<HttpResponse<String>> running = inFlight(path);

            HttpResponse<String> refused = get(path);
            assertThat(refused.statusCode()).as(path).isEqualTo(429);
            assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
            assertThat(refused.headers().firstValue("RateLimit-Policy"))
                    .hasValue("\"conc\";q=1;qu=\"concurrent-requests\"");
            assertThat(RateLimitAssertions.assertProblem(refused, 429).get("policy")).isEqualTo("conc");

            ConcurrencyResources.finish();
            assertThat(running.get().statusCode()).isEqualTo(200);
            ConcurrencyResources.reset();
            awaitAdmitted("conc/mapped-failure", 409);
        }
        // a mapped exception's response passes the response filter, which returns the permit
        assertThat(get("conc/mapped-failure").statusCode()).isEqualTo(409);
        assertThat(get("conc/mapped-failure").statusCode()).isEqualTo(409);
    }

    /** Starts a request that stays in flight until {@link ConcurrencyResources#finish()}. */
    java.util.concurrent.CompletableFuture<HttpResponse<String>> inFlight(String path) {
        java.util.concurrent.CompletableFuture<HttpResponse<String>> running =
                java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                    try {
                        return get(path);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
        await().atMost(java.time.Duration.ofSeconds(20)).until(() -> ConcurrencyResources.IN_FLIGHT.get() == 1);
        return running;
    }

    /** Polls until a request to {@code path} is admitted (the permit of the last one came back) and answers {@code status}. */
    void awaitAdmitted(String path, int status) {
        await().atMost(java.time.Duration.ofSeconds(10)).until(() -> get(path).statusCode() == status);
    }

    /** Deploys every scenario resource with a fresh key prefix, so no test sees another's buckets. */
    void deployScenarios() throws Exception {
        TestApplication application = new TestApplication(Resources.ClassLimited.class,
                Resources.ThreePolicies.class, Resources.PerUser.class, Resources.PerItem.class,
                Resources.Tuned.class, Resources.Shared.class, Resources.Free.class, ConcurrencyResources.Slow.class,
                RateLimitFeature.class)
                .properties(settings());
        deployment = container().deploy(application);
    }

    Map<String, String> settings() {
        Map<String, String> settings = new java.util.HashMap<>();
        settings.put("sluice.redis.uri", REDIS.uri());
        settings.put("sluice.key-prefix", "t" + PREFIXES.incrementAndGet() + "-" + ProcessHandle.current().pid());
        settings.put("sluice.limit.tuned.rate", "2/1h");
        settings.put("sluice.limit.shared.rate", "3/1h");
        settings.put("sluice.limit.shared.paths", "/shared/filtered");
        settings.put("sluice.limit.conc.concurrency", "1");
        return settings;
    }

    HttpResponse<String> get(String path) throws Exception {
        return get(path, Map.of());
    }

    HttpResponse<String> get(String path, String user) throws Exception {
        String credentials = user + ":" + JaxrsContainer.PASSWORD;
        return get(path, Map.of("Authorization",
                "Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8))));
    }

    HttpResponse<String> get(String path, Map<String, String> headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(deployment.base() + path));
        headers.forEach(request::header);
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static SluiceConfigException rootSluiceConfigException(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SluiceConfigException config) {
                return config;
            }
        }
        return null;
    }
}
