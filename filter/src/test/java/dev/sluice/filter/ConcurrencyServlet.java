package dev.sluice.filter;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpUpgradeHandler;
import jakarta.servlet.http.WebConnection;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A slow resource for concurrency limits: each request stays in flight until the test {@link #finish()}es it,
 * synchronously ({@code ?sync}) or in an asynchronous cycle ({@code ?async}); {@code ?fail} throws, {@code ?abort}
 * writes until the client has gone; {@code ?upgrade} switches the connection to a protocol of its own, which stays
 * open until the client closes it (counted in {@link #UPGRADED}).
 */
public class ConcurrencyServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    /** Requests that reached the servlet and have not finished. */
    static final AtomicInteger IN_FLIGHT = new AtomicInteger();
    /** Upgraded connections served since {@link #reset()}. */
    static final AtomicInteger UPGRADED = new AtomicInteger();
    private static final AtomicReference<CountDownLatch> FINISH = new AtomicReference<>(new CountDownLatch(1));

    static void reset() {
        IN_FLIGHT.set(0);
        UPGRADED.set(0);
        FINISH.set(new CountDownLatch(1));
    }

    /** Lets every request in flight (and every later one) finish. */
    static void finish() {
        FINISH.get().countDown();
    }

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response)
            throws IOException, ServletException {
        String query = String.valueOf(request.getQueryString());
        if (query.contains("upgrade")) {
            response.setStatus(HttpServletResponse.SC_SWITCHING_PROTOCOLS);
            response.setHeader("Connection", "Upgrade");
            response.setHeader("Upgrade", "hold");
            request.upgrade(Held.class);
            return;
        }
        IN_FLIGHT.incrementAndGet();
        try {
            if (query.contains("fail")) {
                throw new IllegalStateException("the resource failed");
            }
            if (query.contains("abort")) {
                writeUntilTheClientIsGone(response);
                return;
            }
            if (query.contains("async")) {
                AsyncContext async = request.startAsync();
                async.setTimeout(60_000);
                IN_FLIGHT.incrementAndGet();
                async.start(() -> {
                    try {
                        awaitFinish();
                        write((HttpServletResponse) async.getResponse(), "async done");
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    } finally {
                        IN_FLIGHT.decrementAndGet();
                        async.complete();
                    }
                });
                return;
            }
            awaitFinish();
            write(response, "done");
        } finally {
            IN_FLIGHT.decrementAndGet();
        }
    }

    /** An upgraded connection that stays open until the client closes it; counts the connections it served. */
    public static final class Held implements HttpUpgradeHandler {
        @Override
        public void init(WebConnection connection) {
            UPGRADED.incrementAndGet();
        }

        @Override
        public void destroy() {
            // nothing held
        }
    }

    private static void awaitFinish() {
        try {
            if (!FINISH.get().await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test never finished this request");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void writeUntilTheClientIsGone(HttpServletResponse response) throws IOException {
        response.setContentType("application/octet-stream");
        OutputStream out = response.getOutputStream();
        byte[] chunk = new byte[8192];
        for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); System.nanoTime() < deadline;) {
            out.write(chunk);
            out.flush(); // throws once the client has closed its connection
            awaitFinishBriefly();
        }
        throw new IllegalStateException("the client never went away");
    }

    /** Paces the writes without holding the test up: returns at once after {@link #finish()}. */
    private static void awaitFinishBriefly() {
        try {
            FINISH.get().await(10, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void write(HttpServletResponse response, String body) throws IOException {
        response.setContentType("text/plain");
        response.getOutputStream().write(body.getBytes(StandardCharsets.UTF_8));
    }
}
