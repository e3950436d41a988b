package dev.sluice.filter;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The resource behind the filter: counts how often it runs, so tests can prove a refused request never
 * reached it. Answers asynchronously when asked ({@code ?async}, from the container's pool;
 * {@code ?async=thread}, from a thread of its own that sets the status and completes), to check the filter in
 * async chains; {@code ?dispatch=<code>} goes asynchronous and at once dispatches the request again, whose
 * second pass answers with that status. Further query words shape the answer: {@code status=<code>} sets the status, {@code flush}
 * commits the response before the servlet returns, {@code throw} ends it with an exception.
 */
public class ProtectedServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    /** Invocations since the last {@link #reset()}. */
    static final AtomicInteger INVOCATIONS = new AtomicInteger();

    static void reset() {
        INVOCATIONS.set(0);
    }

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        INVOCATIONS.incrementAndGet();
        String query = request.getQueryString();
        // read from the raw query, not getParameter: the hostile-input tests send queries a container may refuse to decode
        java.util.Set<String> words = query == null ? java.util.Set.of()
                : new java.util.HashSet<>(java.util.Arrays.asList(query.split("&")));
        String status = words.stream().filter(w -> w.matches("status=[1-5][0-9][0-9]")).map(w -> w.substring(7))
                .findFirst().orElse(null);
        String redispatched = words.stream().filter(w -> w.matches("dispatch=[1-5][0-9][0-9]"))
                .map(w -> w.substring(9)).findFirst().orElse(null);
        if (redispatched != null) {
            if (request.getDispatcherType() == jakarta.servlet.DispatcherType.ASYNC) {
                response.setStatus(Integer.parseInt(redispatched));
                write(response, "dispatched");
            } else {
                request.startAsync().dispatch();
            }
            return;
        }
        if (words.contains("async=thread")) {
            AsyncContext async = request.startAsync();
            Thread answering = new Thread(() -> {
                try {
                    HttpServletResponse out = (HttpServletResponse) async.getResponse();
                    if (status != null) {
                        out.setStatus(Integer.parseInt(status));
                    }
                    write(out, "async ok");
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                } finally {
                    async.complete();
                }
            }, "answering-thread");
            answering.start();
            return;
        }
        if (status != null) {
            response.setStatus(Integer.parseInt(status));
        }
        boolean flush = words.contains("flush");
        if (flush) {
            write(response, "committed early");
            response.flushBuffer();
        }
        if (words.contains("throw")) {
            throw new IllegalStateException("the resource failed");
        }
        if (flush) {
            return;
        }
        if (query != null && query.contains("async")) {
            AsyncContext async = request.startAsync();
            async.start(() -> {
                try {
                    write((HttpServletResponse) async.getResponse(), "async ok");
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                } finally {
                    async.complete();
                }
            });
            return;
        }
        write(response, "ok");
    }

    private static void write(HttpServletResponse response, String text) throws IOException {
        response.setContentType("text/plain");
        response.getOutputStream().write(text.getBytes(StandardCharsets.UTF_8));
    }
}
