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
 * async chains. Further query words shape the answer: {@code status=<code>} sets the status, {@code flush}
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
        String status = request.getParameter("status");
        if ("thread".equals(request.getParameter("async"))) {
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
        if (query != null && query.contains("flush")) {
            write(response, "committed early");
            response.flushBuffer();
        }
        if (query != null && query.contains("throw")) {
            throw new IllegalStateException("the resource failed");
        }
        if (query != null && query.contains("flush")) {
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
