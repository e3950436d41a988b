package dev.sluice.sample;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * {@code /conc/slow}: a slow report, of which Sluice's servlet filter lets at most two run at once per client
 * (the policy {@code conc-slow}, {@code sluice.limit.conc-slow.concurrency=2}); this servlet knows nothing about
 * it. A request waits until {@code POST /conc/control} lets every waiting one finish ({@code ?now} does not
 * wait); {@code GET /conc/control} tells how many are waiting.
 */
@WebServlet(urlPatterns = {"/conc/slow", "/conc/control"})
public class ConcurrencyDemoServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    private static final AtomicInteger WAITING = new AtomicInteger();
    private static final AtomicReference<CountDownLatch> FINISH = new AtomicReference<>(new CountDownLatch(1));

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (request.getServletPath().equals("/conc/control")) {
            respond(response, "waiting=" + WAITING.get() + "\n");
            return;
        }
        // The query string rather than getParameter("now"): Open Liberty's Servlet 4 container drops a parameter
        // without "=".
        if (!"now".equals(request.getQueryString())) {
            CountDownLatch finish = FINISH.get();
            WAITING.incrementAndGet();
            try {
                if (!finish.await(60, TimeUnit.SECONDS)) {
                    response.sendError(504, "nobody let this report finish");
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                response.sendError(503);
                return;
            } finally {
                WAITING.decrementAndGet();
            }
        }
        respond(response, "report done\n");
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (!request.getServletPath().equals("/conc/control")) {
            response.sendError(405);
            return;
        }
        FINISH.getAndSet(new CountDownLatch(1)).countDown();
        respond(response, "finished\n");
    }

    private static void respond(HttpServletResponse response, String text) throws IOException {
        response.setContentType("text/plain;charset=UTF-8");
        response.getWriter().write(text);
    }
}
