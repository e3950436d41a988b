package dev.sluice.servers;

import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import dev.sluice.test.RedisServer;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.function.Executable;

import static dev.sluice.test.RateLimitAssertions.assertAllowed;
import static dev.sluice.test.RateLimitAssertions.assertProblem;
import static dev.sluice.test.RateLimitAssertions.assertTooManyRequests;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertAll;

/**
 * What the sample must do on every server, checked from the client side over HTTP in each packaging that the
 * server runs, all deployed on one server start: the same scenarios as ear-sample/it's, for servers and
 * namespaces that module does not cover. Subclasses deploy the packagings and say where they answer.
 *
 * <p>Redis comes from the shared fixture; the server gets its address through its own MicroProfile Config
 * ({@code -Dsluice.redis.uri}), which the sample reads. Subclasses register the extension that starts the
 * server as {@code @Order(3)}, after the Redis fixture and {@link ServerProperties}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
public abstract class SampleScenarios {

    @RegisterExtension
    @Order(1)
    protected static final RedisServer redis = RedisServer.standalone();

    @RegisterExtension
    @Order(2)
    protected static final ServerProperties serverProperties = new ServerProperties(redis);

    /** The packagings deployed on the server under test, and where they answer. */
    protected abstract List<SampleApp> apps();

    @Test
    @Order(1)
    public void jaxRsResourceIsDeniedWithContractHeadersOnceBurstIsSpent() {
        eachApp(app -> {
            for (int remaining = 4; remaining >= 0; remaining--) {
                assertThat(assertAllowed(Http.get(app.uri("api/hello")), "api", 5, 60).remaining())
                        .isEqualTo(remaining);
            }
            assertTooManyRequests(Http.get(app.uri("api/hello")), "api", 5, 60);
            assertThat(redis.admin().keys(app.keyPrefix() + ":rl:{api:*"))
                    .as("%s keeps its buckets in the Redis named by the server's MicroProfile Config", app)
                    .isNotEmpty();
        });
    }

    @Test
    @Order(2)
    public void servletFilterDeniesLoginOnceBurstIsSpent() {
        eachApp(app -> {
            for (int remaining = 4; remaining >= 0; remaining--) {
                HttpResponse<String> allowed = Http.post(app.uri("login"));
                assertThat(assertAllowed(allowed, "login", 5, 60).remaining()).isEqualTo(remaining);
                assertThat(allowed.body()).isEqualTo("welcome\n");
            }
            HttpResponse<String> denied = Http.post(app.uri("login"));
            assertTooManyRequests(denied, "login", 5, 60);
            assertThat(denied.body()).doesNotContain("welcome");
        });
    }

    @Test
    @Order(3)
    public void eachAuthenticatedUserHasABucketOfTheirOwn() {
        eachApp(app -> {
            URI me = app.uri("api/me");
            assertThat(Http.get(me).statusCode()).as("anonymous").isEqualTo(401);
            for (int remaining = 2; remaining >= 0; remaining--) {
                HttpResponse<String> alice = Http.get(me, "alice", "alice-pw");
                assertThat(assertAllowed(alice, "per-user", 3, 60).remaining()).isEqualTo(remaining);
                assertThat(alice.body()).isEqualTo("hello alice\n");
            }
            assertTooManyRequests(Http.get(me, "alice", "alice-pw"), "per-user", 3, 60);

            HttpResponse<String> bob = Http.get(me, "bob", "bob-pw");
            assertThat(assertAllowed(bob, "per-user", 3, 60).remaining()).as("bob's own bucket").isEqualTo(2);
            assertThat(bob.body()).isEqualTo("hello bob\n");
        });
    }

    @Test
    @Order(4)
    public void twoHundredConcurrentBuyersOfTenSeatsBuyExactlyTen() {
        eachApp(app -> {
            URI concert = app.uri("api/concerts/" + UUID.randomUUID());
            List<HttpResponse<String>> responses = Http.postConcurrently(URI.create(concert + "/tickets"), 200);

            Map<Integer, Long> byStatus = responses.stream()
                    .collect(Collectors.groupingBy(HttpResponse::statusCode, Collectors.counting()));
            assertThat(byStatus).as("%s: statuses of 200 purchases", app).isEqualTo(Map.of(201, 10L, 409, 190L));
            assertThat(responses.stream().filter(r -> r.statusCode() == 201).map(HttpResponse::body))
                    .as("%s: seats sold", app)
                    .containsExactlyInAnyOrderElementsOf(
                            IntStream.rangeClosed(1, 10).mapToObj(n -> "seat " + n + "\n").toList());

            Map<String, String> report = report(Http.get(concert));
            assertThat(report).as("%s: concert report", app)
                    .containsEntry("sold", "10")
                    .containsEntry("overlaps", "0")
                    .containsEntry("commitsAfterLockRelease", "0");
            String concertId = concert.getPath().substring(concert.getPath().lastIndexOf('/') + 1);
            assertThat(redis.admin().keys(app.keyPrefix() + ":lock:{concert:" + concertId + "}*"))
                    .as("%s locks in the Redis and under the key prefix of its MicroProfile Config", app)
                    .isNotEmpty();
        });
    }

    @Test
    @Order(5)
    public void lockIsReleasedOnlyAfterTheTransactionCommits() {
        eachApp(app -> {
            URI concert = app.uri("api/concerts/" + UUID.randomUUID());
            for (int seat = 1; seat <= 3; seat++) {
                HttpResponse<String> bought = Http.post(URI.create(concert + "/tickets"));
                assertThat(bought.statusCode()).as(describe(bought)).isEqualTo(201);
            }
            // Each commit asked, from another thread, whether the lock was still taken.
            assertThat(report(Http.get(concert))).as("%s: concert report", app)
                    .containsEntry("sold", "3")
                    .containsEntry("commitsAfterLockRelease", "0");
        });
    }

    @Test
    @Order(6)
    public void neverMoreThanTwoRendersRunAtOnce() {
        eachApp(app -> {
            List<HttpResponse<String>> renders = Http.postConcurrently(app.uri("api/render"), 6);
            assertThat(renders).as("%s: renders", app)
                    .allSatisfy(r -> assertThat(r.statusCode()).as(describe(r)).isEqualTo(200));
            Map<String, String> report = report(Http.get(app.uri("api/render")));
            assertThat(report).as("%s: render report", app)
                    .containsEntry("finished", "6")
                    .containsEntry("mostAtOnce", "2");
        });
    }

    /** {@code sluice.limit.exempt-local.exempt=127.0.0.1, ::1}: the test's own requests are never charged. */
    @Test
    @Order(40)
    public void aPolicyExemptingTheLoopbackAddressNeverChargesIt() {
        eachApp(app -> {
            for (int i = 0; i < 5; i++) {
                HttpResponse<String> local = Http.get(app.uri("api/exempt/local"));
                assertThat(local.statusCode()).as(describe(local)).isEqualTo(200);
                assertThat(header(local, "RateLimit")).as(describe(local)).isNull();
            }
            assertThat(redis.admin().keys(app.keyPrefix() + ":rl:{exempt-local:*"))
                    .as("%s: no bucket for an exempt client", app).isEmpty();
        });
    }

    /** Last: it restarts Redis under the running server. */
    /**
     * The spellings of a limited path a client could try, each refused once the policy is spent or not served by
     * the limited resource at all: what the server normalises, routes or rejects differs per server.
     */
    @Test
    @Order(7)
    public void everySpellingOfALimitedPathIsChargedOrNotServed() {
        List<String> variants = List.of("", "/", ";jsessionid=x", ";a=b", "/;x=y", "/.", "%2F", "%2f", "?a=b");
        eachApp(app -> {
            String root = app.base().getPath();
            List<String> escaped = new ArrayList<>();
            for (String target : variants.stream().map(v -> root + "login" + v).toList()) {
                checkVariant(app, "POST", "login", target, "welcome", escaped);
            }
            for (String target : List.of(root + "/login", root + "./login", root + "%6cogin", root + "x/../login",
                    root + "%2Flogin")) {
                checkVariant(app, "POST", "login", target, "welcome", escaped);
            }
            checkVariant(app, "post", "login", root + "login", "welcome", escaped);
            for (String target : variants.stream().map(v -> root + "api/hello" + v).toList()) {
                checkVariant(app, "GET", "api/hello", target, "hello from Sluice", escaped);
            }
            for (String target : List.of(root + "api//hello", root + "api/./hello", root + "api/%68ello",
                    root + "api%2Fhello")) {
                checkVariant(app, "GET", "api/hello", target, "hello from Sluice", escaped);
            }
            checkVariant(app, "get", "api/hello", root + "api/hello", "hello from Sluice", escaped);
            checkVariant(app, "HEAD", "api/hello", root + "api/hello", "", escaped);
            assertThat(escaped).as("%s: variants served past the limit", app).isEmpty();
        });
    }

    /**
     * Spends the policy of {@code limitedPath} with plain requests, then sends the variant; records it in
     * {@code escaped} when the limited resource served it. The sample's limits are per minute, so a token
     * comes back every 12 or 20 seconds: one may arrive between spending and the variant, never twice in a
     * row, so a variant counts as escaped only when it is served on two attempts.
     */
    private static void checkVariant(SampleApp app, String method, String limitedPath, String target, String served,
                                     List<String> escaped) {
        for (int attempt = 0; attempt < 2; attempt++) {
            spend(app, method.equalsIgnoreCase("post") ? "POST" : "GET", limitedPath);
            Http.RawResponse response = Http.raw(app.base(), method, target);
            boolean reachedTheResource = response.status() / 100 == 2 && response.body().contains(served);
            if (response.status() == 429 || !reachedTheResource) {
                return;
            }
            if (attempt == 1) {
                escaped.add(method + " " + target + " -> " + response);
            }
        }
    }

    private static void spend(SampleApp app, String method, String limitedPath) {
        String target = app.base().getPath() + limitedPath;
        for (int i = 0; i < 10; i++) {
            if (Http.raw(app.base(), method, target).status() == 429) {
                return;
            }
        }
        throw new AssertionError(app + ": " + method + " " + target + " was never refused in 10 requests");
    }

    /**
     * {@code GET /api/catalog} carries an enforced policy and a shadowed one, {@code POST /api/sign-in} a policy
     * charged only for 401s: the policies of a request are decided in one script call before the response, and
     * a failed login costs one more, to charge it, and a successful one none. Before the login and shadow
     * scenarios, which leave refused keys in each node's memory of refusals (answered there without Redis).
     */
    @Test
    @Order(20)
    public void enforcedAndShadowedPoliciesTakeOneRoundTripBeforeTheResponse() {
        eachApp(app -> {
            URI catalog = app.uri("api/catalog");
            URI signIn = app.uri("api/sign-in");
            assertThat(Http.get(catalog).statusCode()).as("%s: warm-up, loads the script", app).isEqualTo(200);

            redis.resetStats();
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> served = Http.get(catalog);
                assertThat(served.statusCode()).as(describe(served)).isEqualTo(200);
            }
            assertThat(scriptCalls()).as("%s: script calls for 3 requests under an enforced and a shadowed policy",
                    app).isEqualTo(3);

            redis.resetStats();
            HttpResponse<String> welcome = Http.postForm(signIn, "user", "bob", "password", "bob-pw");
            assertThat(welcome.statusCode()).as(describe(welcome)).isEqualTo(200);
            HttpResponse<String> failed = Http.postForm(signIn, "user", "bob", "password", "not-bobs");
            assertThat(failed.statusCode()).as(describe(failed)).isEqualTo(401);
            // The charge of the 401 may land just after the client has its answer: wait for it, then make sure
            // nothing more came (the successful login must have cost its check only).
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> scriptCalls() >= 3);
            assertThat(scriptCalls()).as("%s: script calls for a successful login (check) and a failed one (check, "
                    + "then the charge after its 401)", app).isEqualTo(3);
        });
    }

    /**
     * {@code POST /api/sign-in} under {@code login-failures} ({@code count=401}, 3 a minute per client address):
     * successful logins never touch the bucket, failures do, and once three failures are counted the next
     * attempt from the address is refused, with the right password or another user's.
     */
    @Test
    @Order(21)
    public void onlyFailedLoginsAreChargedAndTheFourthAttemptIsRefused() {
        eachApp(app -> {
            URI signIn = app.uri("api/sign-in");
            List<Long> remainingAfterSuccess = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                HttpResponse<String> welcome = Http.postForm(signIn, "user", "alice", "password", "alice-pw");
                assertThat(welcome.statusCode()).as(describe(welcome)).isEqualTo(200);
                assertThat(welcome.body()).isEqualTo("welcome alice\n");
                remainingAfterSuccess.add(assertAllowed(welcome, "login-failures", 3, 60).remaining());
            }
            assertThat(remainingAfterSuccess).as("%s: remaining tokens across 5 successful logins", app)
                    .containsOnly(3L);
            assertThat(redis.admin().keys(app.keyPrefix() + ":rl:{login-failures:*"))
                    .as("%s: successful logins alone leave no bucket in Redis", app).isEmpty();

            for (int i = 1; i <= 3; i++) {
                HttpResponse<String> failed = Http.postForm(signIn, "user", "alice", "password", "guess-" + i);
                assertThat(failed.statusCode()).as(describe(failed)).isEqualTo(401);
                assertAllowed(failed, "login-failures", 3, 60);
            }
            assertThat(redis.admin().keys(app.keyPrefix() + ":rl:{login-failures:*"))
                    .as("%s: failed logins are charged", app).isNotEmpty();

            HttpResponse<String> refused = Http.postForm(signIn, "user", "alice", "password", "alice-pw");
            assertTooManyRequests(refused, "login-failures", 3, 60);
            assertThat(refused.body()).doesNotContain("welcome");
            HttpResponse<String> sameAddress = Http.postForm(signIn, "user", "bob", "password", "bob-pw");
            assertTooManyRequests(sameAddress, "login-failures", 3, 60);
        });
    }

    /**
     * {@code GET /api/catalog}: {@code shadow-trial} (2 a minute, {@code mode=shadow}) is over its limit from the
     * third request on, and the one with the fewest tokens, yet it refuses nothing and adds no headers: those and
     * the 429 come from {@code shadow-enforced} (5 a minute) alone. Its bucket is charged as usual.
     */
    @Test
    @Order(22)
    public void shadowedPolicyNeverRefusesAndSendsNoHeadersOfItsOwn() {
        eachApp(app -> {
            URI catalog = app.uri("api/catalog");
            long wouldDenyBefore = counter(app, "shadow-trial", "WouldDeny");
            for (int remaining = 4; remaining >= 0; remaining--) {
                HttpResponse<String> served = Http.get(catalog);
                assertThat(served.body()).as(describe(served)).isEqualTo("catalog\n");
                // one RateLimit-Policy item and one RateLimit item, both naming the enforced policy
                assertThat(assertAllowed(served, "shadow-enforced", 5, 60).remaining()).isEqualTo(remaining);
            }
            HttpResponse<String> refused = Http.get(catalog);
            assertTooManyRequests(refused, "shadow-enforced", 5, 60);
            assertThat(assertProblem(refused, 429).get("violated-policies")).as(describe(refused))
                    .isEqualTo(List.of("shadow-enforced"));
            assertThat(redis.admin().keys(app.keyPrefix() + ":rl:{shadow-trial:*"))
                    .as("%s: the shadowed policy's bucket", app).isNotEmpty();
            // shadow-trial (2/1m) admits the first two requests and would have refused the four after them,
            // the one shadow-enforced refused included
            assertThat(counter(app, "shadow-trial", "WouldDeny") - wouldDenyBefore)
                    .as("%s: would-be refusals of the shadowed policy", app).isEqualTo(4);
            assertThat(counter(app, "shadow-trial", "Denied")).as("%s: a shadowed policy refuses nobody", app)
                    .isZero();
        });
    }

    /** A policy's JMX counter as the sample's {@code api/counters/<policy>} reads it (summed over its apps). */
    private static long counter(SampleApp app, String policy, String attribute) {
        HttpResponse<String> counters = Http.get(app.uri("api/counters/" + policy));
        assertThat(counters.statusCode()).as(describe(counters)).isEqualTo(200);
        for (String line : counters.body().split("\n")) {
            if (line.startsWith(attribute + "=")) {
                return Long.parseLong(line.substring(attribute.length() + 1));
            }
        }
        throw new AssertionError("no " + attribute + " in " + counters.body());
    }

    /** Script calls ({@code EVALSHA}, and {@code EVAL} should a script have to be sent) since the last reset. */
    private static long scriptCalls() {
        return redis.commandCount("evalsha") + redis.commandCount("eval");
    }

    @Test
    @Order(100)
    public void recoversWhenRedisRestartsMidTest() {
        eachApp(app -> {
            for (int remaining = 2; remaining >= 0; remaining--) {
                assertThat(assertAllowed(Http.get(app.uri("api/status")), "status", 3, 60).remaining())
                        .isEqualTo(remaining);
            }
            assertTooManyRequests(Http.get(app.uri("api/status")), "status", 3, 60);
        });

        redis.stop();
        eachApp(app -> {
            // The node still knows this client is refused for the next seconds (its deny cache) and may say so
            // without Redis; otherwise the request fails open. Never a 5xx.
            HttpResponse<String> meanwhile = Http.get(app.uri("api/status"));
            assertThat(meanwhile.statusCode()).as("fails open while Redis is down, or refuses a client it knows"
                    + " is over its limit: " + describe(meanwhile)).isIn(200, 429);
            if (meanwhile.statusCode() == 429) {
                assertTooManyRequests(meanwhile, "status", 3, 60);
            }
        });

        redis.start();
        eachApp(app -> {
            // Redis lost its data, so the first answer with headers starts a fresh bucket.
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                    .until(() -> header(Http.get(app.uri("api/status")), "RateLimit") != null);
            HttpResponse<String> last;
            int requests = 0;
            do {
                last = Http.get(app.uri("api/status"));
                requests++;
            } while (last.statusCode() == 200 && requests <= 3);
            assertTooManyRequests(last, "status", 3, 60);

            // A lock attempt on a connection that died with the old Redis may be refused; it must
            // be refused politely (503 + Retry-After), and locking must come back.
            URI tickets = app.uri("api/concerts/" + UUID.randomUUID() + "/tickets");
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250)).until(() -> {
                HttpResponse<String> bought = Http.post(tickets);
                assertThat(bought.statusCode()).as("while locks recover: " + describe(bought)).isIn(201, 503);
                return bought.statusCode() == 201;
            });
        });
    }

    /** Runs the check on every packaging and reports every failure, not only the first. */
    protected void eachApp(Consumer<SampleApp> check) {
        assertAll(apps().stream().map(app -> (Executable) () -> check.accept(app)));
    }

    private static String header(HttpResponse<String> response, String name) {
        return response.headers().firstValue(name).orElse(null);
    }

    protected static String describe(HttpResponse<String> response) {
        return response.request().method() + " " + response.uri() + " -> " + response.statusCode() + " "
                + response.headers().map() + " " + response.body();
    }

    /** Parses the sample's {@code key=value} reports. */
    protected static Map<String, String> report(HttpResponse<String> response) {
        assertThat(response.statusCode()).as(describe(response)).isEqualTo(200);
        return Arrays.stream(response.body().split("\n"))
                .filter(line -> line.contains("="))
                .map(line -> line.split("=", 2))
                .collect(Collectors.toMap(kv -> kv[0], kv -> kv[1]));
    }
}
