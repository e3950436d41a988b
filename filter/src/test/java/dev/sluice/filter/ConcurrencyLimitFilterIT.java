package dev.sluice.filter;

import dev.sluice.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static dev.sluice.filter.Descriptors.contextParams;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A concurrency limit ({@code sluice.limit.<policy>.concurrency}) in a real Jetty against a real Redis: requests in
 * flight hold permits, the next is refused, and every way a request can end gives its permit back: a response, an
 * asynchronous cycle's end, an exception, a client that went away.
 */
class ConcurrencyLimitFilterIT {

    @RegisterExtension
    static final RedisServer REDIS = RedisServer.standalone();

    private static final String PERMITS = "sluice:cc:{reports:127.0.0.1}";

    @TempDir
    Path root;

    private WebApp app;

    @BeforeEach
    void start() throws Exception {
        ConcurrencyServlet.reset();
        app = WebApp.start(root, """
                <servlet>
                  <servlet-name>reports</servlet-name>
                  <servlet-class>dev.sluice.filter.ConcurrencyServlet</servlet-class>
                  <async-supported>true</async-supported>
                </servlet>
                <servlet-mapping><servlet-name>reports</servlet-name><url-pattern>/reports</url-pattern></servlet-mapping>
                """ + contextParams("sluice.redis.uri", REDIS.uri(),
                "sluice.limit.reports.concurrency", "2", "sluice.limit.reports.paths", "/reports"), true);
    }

    @AfterEach
    void stop() throws Exception {
        ConcurrencyServlet.finish();
        app.close();
    }

    private CompletableFuture<HttpResponse<String>> inFlight(String query, int expectedInFlight) {
        CompletableFuture<HttpResponse<String>> response = CompletableFuture.supplyAsync(() -> {
            try {
                return app.get("/reports?" + query);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(20)).until(() -> ConcurrencyServlet.IN_FLIGHT.get() >= expectedInFlight);
        return response;
    }

    private long held() {
        return REDIS.admin().zcard(PERMITS);
    }

    @Test
    void twoRequestsInFlightAndTheThirdIsRefusedUntilOneCompletes() throws Exception {
        List<CompletableFuture<HttpResponse<String>>> running = new ArrayList<>();
        running.add(inFlight("sync", 1));
        running.add(inFlight("sync", 2));

        HttpResponse<String> refused = app.get("/reports?sync");
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(refused.headers().firstValue("RateLimit-Policy"))
                .hasValue("\"reports\";q=2;qu=\"concurrent-requests\"");
        assertThat(refused.headers().firstValue("Content-Type")).hasValueSatisfying(
                t -> assertThat(t).startsWith("application/problem+json"));
        assertThat(refused.body()).contains("\"status\":429", "Concurrency limit 'reports' reached");
        assertThat(held()).isEqualTo(2);

        ConcurrencyServlet.finish();
        for (CompletableFuture<HttpResponse<String>> r : running) {
            assertThat(r.get().statusCode()).isEqualTo(200);
            assertThat(r.get().headers().firstValue("RateLimit-Policy"))
                    .hasValue("\"reports\";q=2;qu=\"concurrent-requests\"");
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> held() == 0);
        assertThat(app.get("/reports?sync").statusCode()).isEqualTo(200);
    }

    @Test
    void anAsynchronousRequestHoldsItsPermitUntilItsCycleEnds() throws Exception {
        CompletableFuture<HttpResponse<String>> running = inFlight("async", 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> held() == 1);
        // the servlet has returned to the container; the request is still in flight
        CompletableFuture<HttpResponse<String>> second = inFlight("async", 2);
        assertThat(app.get("/reports?async").statusCode()).isEqualTo(429);

        ConcurrencyServlet.finish();
        assertThat(running.get().body()).isEqualTo("async done");
        assertThat(second.get().statusCode()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(10)).until(() -> held() == 0);
    }

    @Test
    void aRequestEndingInAnExceptionGivesItsPermitBack() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertThat(app.get("/reports?fail").statusCode()).isEqualTo(500);
            await().atMost(Duration.ofSeconds(10)).until(() -> held() == 0);
        }
    }

    @Test
    void aClientThatGoesAwayGivesItsPermitBack() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", app.uri("").getPort())) {
            OutputStream out = socket.getOutputStream();
            out.write(("GET " + WebApp.CONTEXT_PATH + "/reports?abort HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            await().atMost(Duration.ofSeconds(20)).until(() -> ConcurrencyServlet.IN_FLIGHT.get() == 1);
            assertThat(held()).isEqualTo(1);
            socket.setSoLinger(true, 0); // reset, not a polite close
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> ConcurrencyServlet.IN_FLIGHT.get() == 0);
        await().atMost(Duration.ofSeconds(10)).until(() -> held() == 0);
    }

    /**
     * The documented rule for upgraded connections: the upgrade request's permit goes back with its {@code 101};
     * the connection that follows counts against no concurrency limit.
     */
    @Test
    void anUpgradedConnectionGivesThePermitBackWithItsSwitchingProtocolsResponse() throws Exception {
        List<Socket> open = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                Socket socket = new Socket("127.0.0.1", app.uri("").getPort());
                open.add(socket);
                socket.getOutputStream().write(("GET " + WebApp.CONTEXT_PATH + "/reports?upgrade HTTP/1.1\r\n"
                        + "Host: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: hold\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                socket.getOutputStream().flush();
                byte[] status = socket.getInputStream().readNBytes("HTTP/1.1 101".length());
                assertThat(new String(status, StandardCharsets.US_ASCII)).as("upgrade %d of a limit of 2", i + 1)
                        .isEqualTo("HTTP/1.1 101");
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> ConcurrencyServlet.UPGRADED.get() == 3);
            await().atMost(Duration.ofSeconds(10)).until(() -> held() == 0);
        } finally {
            for (Socket socket : open) {
                socket.close();
            }
        }
    }
}
