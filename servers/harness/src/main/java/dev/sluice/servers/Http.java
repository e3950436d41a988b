package dev.sluice.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

/** The tests' HTTP client: the JDK's, over loopback, with no state between requests. */
public final class Http {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private static final HttpClient CLIENT = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();

    private Http() {
    }

    public static HttpResponse<String> get(URI uri) {
        return send(request(uri).GET().build());
    }

    public static HttpResponse<String> post(URI uri) {
        return send(request(uri).POST(HttpRequest.BodyPublishers.noBody()).build());
    }

    /** GET with HTTP Basic credentials sent up front. */
    public static HttpResponse<String> get(URI uri, String user, String password) {
        String token = Base64.getEncoder()
                .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
        return send(request(uri).header("Authorization", "Basic " + token).GET().build());
    }

    /**
     * POSTs {@code count} times at once (all requests are in flight together, each on its own
     * connection) and returns the responses in no particular order.
     */
    public static List<HttpResponse<String>> postConcurrently(URI uri, int count) {
        List<CompletableFuture<HttpResponse<String>>> pending = IntStream.range(0, count)
                .mapToObj(i -> CLIENT.sendAsync(request(uri).POST(HttpRequest.BodyPublishers.noBody()).build(),
                        HttpResponse.BodyHandlers.ofString()))
                .toList();
        return pending.stream().map(CompletableFuture::join).toList();
    }

    private static HttpRequest.Builder request(URI uri) {
        return HttpRequest.newBuilder(uri).timeout(TIMEOUT);
    }

    private static HttpResponse<String> send(HttpRequest request) {
        try {
            return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(request.method() + " " + request.uri() + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during " + request.method() + " " + request.uri(), e);
        }
    }
}
