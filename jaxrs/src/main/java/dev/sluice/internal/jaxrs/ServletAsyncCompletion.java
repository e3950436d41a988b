package dev.sluice.internal.jaxrs;

import dev.sluice.internal.http.AfterResponse;
import dev.sluice.internal.http.AsyncCycleEnd;

import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletRequestEvent;
import jakarta.servlet.ServletRequestListener;

/**
 * Completes an event stream's {@link AfterResponse} when its servlet request's asynchronous cycle ends, for the
 * event streams whose events no writer interceptor sees (RESTEasy's SSE: its headers pass the response filters
 * without an entity, on whichever thread sends the first event, and its events are written directly). The
 * JAX-RS runtime's injected request only works on the request's own thread, so this listener leaves each servlet
 * request in its own attribute {@link #REQUEST_ATTRIBUTE} (a request property to JAX-RS), where
 * {@link RateLimitResponseFilter} finds it from any thread. Sluice's servlet filter, when it is in front, listens
 * for the same end; a second completion does nothing.
 *
 * <p>Added by {@link ReleaseOnUndeploy}, so it exists only in servlet containers; the response filter names no
 * servlet type. Stateless and thread-safe.
 */
final class ServletAsyncCompletion implements ServletRequestListener {

    /** Request attribute holding the servlet request itself. */
    static final String REQUEST_ATTRIBUTE = "dev.sluice.jaxrs.servletRequest";

    @Override
    public void requestInitialized(ServletRequestEvent event) {
        event.getServletRequest().setAttribute(REQUEST_ATTRIBUTE, event.getServletRequest());
    }

    /**
     * Completes {@code after} with {@code status} when the asynchronous cycle of {@code servletRequest} ends; does
     * nothing when it has none (the servlet filter, or the lease, returns the permit then).
     *
     * @param servletRequest the value of {@link #REQUEST_ATTRIBUTE}
     */
    static void completeWhenCycleEnds(Object servletRequest, AfterResponse after, int status) {
        if (!(servletRequest instanceof ServletRequest request) || !request.isAsyncStarted()) {
            return;
        }
        request.getAsyncContext().addListener(new CycleEndListener(new AsyncCycleEnd(after, () -> status)));
    }

    /** Forwards the end of an asynchronous request's cycle to its {@link AsyncCycleEnd}. */
    private static final class CycleEndListener implements AsyncListener {

        private final AsyncCycleEnd end;

        CycleEndListener(AsyncCycleEnd end) {
            this.end = end;
        }

        @Override
        public void onComplete(AsyncEvent event) {
            end.ended();
        }

        @Override
        public void onTimeout(AsyncEvent event) {
            // onComplete follows
        }

        @Override
        public void onError(AsyncEvent event) {
            // onComplete follows
        }

        @Override
        public void onStartAsync(AsyncEvent event) {
            // the request went asynchronous again: this listener must be registered anew to hear its end
            event.getAsyncContext().addListener(this);
        }
    }
}
