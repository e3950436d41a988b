package dev.sluice.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
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

    public static HttpResponse<String> put(URI uri) {
        return send(request(uri).PUT(HttpRequest.BodyPublishers.noBody()).build());
    }

    /** POSTs without waiting for the answer: for callers that are to run concurrently. */
    public static CompletableFuture<HttpResponse<String>> postAsync(URI uri) {
        return CLIENT.sendAsync(request(uri).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** POSTs an {@code application/x-www-form-urlencoded} body of the fields, in the order given. */
    public static HttpResponse<String> postForm(URI uri, String... namesAndValues) {
        StringBuilder form = new StringBuilder();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            if (i > 0) {
                form.append('&');
            }
            form.append(URLEncoder.encode(namesAndValues[i], StandardCharsets.UTF_8)).append('=')
                    .append(URLEncoder.encode(namesAndValues[i + 1], StandardCharsets.UTF_8));
        }
        return send(request(uri).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form.toString())).build());
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

    /** Status and body of a response to {@link #raw}. */
    public record RawResponse(int status, String body) {
        @Override
        public String toString() {
            return status + " " + body.strip();
        }
    }

    /**
     * Sends {@code <method> <target> HTTP/1.1} over a plain socket to the server of {@code base}, exactly as
     * written: the JDK client would not send a lower-case method or {@code /./login} unchanged.
     */
    public static RawResponse raw(URI base, String method, String target) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(base.getHost(), base.getPort()), 10_000);
            socket.setSoTimeout((int) TIMEOUT.toMillis());
            String request = method + " " + target + " HTTP/1.1\r\nHost: " + base.getHost() + ":" + base.getPort()
                    + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            String response = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            int end = response.indexOf("\r\n\r\n");
            if (!response.startsWith("HTTP/1.1 ") || response.length() < 12) {
                throw new IOException("not an HTTP/1.1 response: " + response);
            }
            return new RawResponse(Integer.parseInt(response.substring(9, 12)), end < 0 ? "" : response.substring(end + 4));
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + target + " to " + base + " failed", e);
        }
    }
}
