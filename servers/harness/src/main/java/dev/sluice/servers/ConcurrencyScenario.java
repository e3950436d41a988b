package dev.sluice.servers;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample's concurrency limit ({@code conc-slow}: at most two {@code GET /conc/slow} per client in flight):
 * two requests held in the servlet, the third refused with the concurrency headers, and the permits back once the
 * two complete. Kept apart from {@link SampleScenarios} so that a server's test opts in with one call.
 */
public final class ConcurrencyScenario {

    private ConcurrencyScenario() {
    }

    /** Runs the scenario against one packaging. */
    public static void check(SampleApp app) {
        List<CompletableFuture<HttpResponse<String>>> running = List.of(
                CompletableFuture.supplyAsync(() -> Http.get(app.uri("conc/slow"))),
                CompletableFuture.supplyAsync(() -> Http.get(app.uri("conc/slow"))));
        try {
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).until(
                    () -> Http.get(app.uri("conc/control")).body().trim().equals("waiting=2"));

            HttpResponse<String> refused = Http.get(app.uri("conc/slow?now"));
            assertThat(refused.statusCode()).as("%s: a third request in flight", app).isEqualTo(429);
            assertThat(refused.headers().firstValue("Retry-After")).as("%s", app).hasValue("1");
            assertThat(refused.headers().firstValue("RateLimit-Policy")).as("%s", app)
                    .hasValue("\"conc-slow\";q=2;qu=\"concurrent-requests\"");
            assertThat(refused.body()).as("%s", app).contains("\"status\":429", "\"policy\":\"conc-slow\"");
        } finally {
            Http.post(app.uri("conc/control"));
        }
        for (CompletableFuture<HttpResponse<String>> r : running) {
            HttpResponse<String> done = r.join();
            assertThat(done.statusCode()).as("%s: %s", app, done.body()).isEqualTo(200);
            assertThat(done.headers().firstValue("RateLimit-Policy")).as("%s", app)
                    .hasValue("\"conc-slow\";q=2;qu=\"concurrent-requests\"");
        }
        // each completed request gave its permit back: two at once pass again
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(
                () -> Http.get(app.uri("conc/slow?now")).statusCode() == 200);
        assertThat(Http.get(app.uri("conc/slow?now")).statusCode()).as("%s", app).isEqualTo(200);
    }
}
