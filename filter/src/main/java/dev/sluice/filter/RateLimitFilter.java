package dev.sluice.filter;

import dev.sluice.internal.http.AdapterConfig;
import dev.sluice.internal.http.AdapterLifecycle;
import dev.sluice.internal.http.AdapterSettings;
import dev.sluice.internal.http.AfterResponse;
import dev.sluice.internal.http.AsyncCycleEnd;
import dev.sluice.internal.http.ChargedPolicies;
import dev.sluice.internal.http.PathPolicies;
import dev.sluice.internal.http.ProblemDetails;
import dev.sluice.internal.http.RateLimitGate;
import dev.sluice.internal.http.RateLimitHeaders;
import dev.sluice.internal.http.Verdict;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Rate limits requests by URL pattern: every policy whose {@code sluice.limit.<policy>.paths} and
 * {@code .methods} match the path within the application is charged, all of them in one Redis round
 * trip. A request over any limit gets {@code 429 Too Many Requests} with {@code Retry-After}, the IETF
 * {@code RateLimit-Policy}/{@code RateLimit} fields and an {@code application/problem+json} body, and
 * the rest of the chain (the protected resource) does not run; an admitted request carries the headers
 * of its tightest policy. A request that matches no policy passes through without touching Redis.
 *
 * <p>Installation: in {@code WEB-INF/lib} the filter registers itself through its
 * {@code META-INF/web-fragment.xml} (fragment {@code sluice}, mapped to {@code /*}); in an EAR's
 * {@code lib/} it is declared in {@code web.xml}. Its init-params are {@code sluice.*} keys and win over
 * every other source (MicroProfile Config, or context-params, system properties, environment,
 * {@code META-INF/microprofile-config.properties}). {@code sluice.filter.enabled=false} turns it off.
 *
 * <p>When Redis is unreachable, {@code sluice.on-redis-failure=allow} (default) admits requests without
 * headers and {@code deny} answers {@code 503 Service Unavailable} with {@code Retry-After} and a problem
 * body; a circuit breaker then stops waiting on Redis after three consecutive failures and probes it
 * once a second.
 *
 * <p>Every policy the filter decided for a request is recorded in the request attribute
 * {@value ChargedPolicies#ATTRIBUTE} (a {@code Set<String>}), so that a second instance of this filter
 * and the JAX-RS filter do not charge it again.
 *
 * <p>A policy that charges only some response statuses ({@code sluice.limit.<policy>.count}) is charged, and a
 * request's permits of concurrency limits ({@code sluice.limit.<policy>.concurrency}) are returned, when the
 * response is complete: after the chain returns (normally or with an exception, a client that went away
 * included), or, for an asynchronous request, when its asynchronous cycle ends; for an upgraded connection
 * ({@code 101 Switching Protocols}, a WebSocket), with the upgrade. The filter does the same for
 * what the JAX-RS filter behind it leaves undone when an exception reaches the container unmapped.
 *
 * <p>Configuration is read and validated in {@link #init}; a bad value fails the deployment with
 * {@link dev.sluice.SluiceConfigException}. The policy keys are read again every {@code sluice.config.refresh}
 * and on the JMX operation {@code reload()}; a reload with a bad value keeps the filter's policies as they
 * were. Thread-safe: one instance serves concurrent requests, and it
 * keeps no per-request state, so asynchronous requests are fine ({@code async-supported} is declared).
 */
public class RateLimitFilter implements Filter {

    private static final System.Logger LOG = System.getLogger("dev.sluice");

    /** The runtime, the reload and the policies in force, which a request reads with one volatile read. */
    private final AdapterLifecycle<PathPolicies> lifecycle = new AdapterLifecycle<>();

    /**
     * Reads the configuration (init-params over the application's configuration), validates it and
     * acquires the application's Sluice runtime (its Redis pool) when at least one policy has paths or
     * {@code sluice.config.refresh} is set (a refresh may give a policy paths later).
     *
     * @throws dev.sluice.SluiceConfigException when a value is invalid
     */
    @Override
    public void init(FilterConfig filterConfig) throws ServletException {
        ServletContext context = filterConfig.getServletContext();
        AdapterSettings settings = AdapterSettings.servlet(applicationClassLoader(context),
                initParameters(filterConfig), contextParameters(context));
        AdapterConfig config = settings.read();
        String name = filterConfig.getFilterName();
        if (!config.filterEnabled()) {
            LOG.log(Level.INFO, "Sluice: filter '" + name + "' is switched off (sluice.filter.enabled=false)");
            return;
        }
        if (PathPolicies.of(config).isEmpty() && !config.refreshes()) {
            LOG.log(Level.DEBUG, "Sluice: filter '" + name + "' has no policy with paths; it passes every request");
            return;
        }
        lifecycle.start(settings, config, "servlet filter '" + name + "' in " + context.getContextPath() + "/",
                (reread, before) -> PathPolicies.of(reread));
        LOG.log(Level.INFO, "Sluice: filter '" + name + "' limits " + lifecycle.current().snapshot().names()
                + " in " + context.getContextPath() + "/");
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        if (!(request instanceof HttpServletRequest http) || !(response instanceof HttpServletResponse out)) {
            chain.doFilter(request, response);
            return;
        }
        try {
            filter(http, out, chain);
        } catch (IOException | ServletException | RuntimeException | Error e) {
            completeJaxrs(http, out, true);
            throw e;
        }
        completeJaxrs(http, out, false);
    }

    /**
     * Completes what the JAX-RS filter behind this one left to do after the response
     * ({@link AfterResponse#ATTRIBUTE}), which its response filter does not do when an exception reaches the
     * container unmapped; a second completion does nothing, so a response the JAX-RS filter saw is left alone.
     */
    private static void completeJaxrs(HttpServletRequest http, HttpServletResponse out, boolean failed) {
        if (!(http.getAttribute(AfterResponse.ATTRIBUTE) instanceof AfterResponse after)) {
            return;
        }
        if (failed) {
            after.completed(out.isCommitted() ? out.getStatus() : 500);
        } else {
            completeAfterChain(http, out, after);
        }
    }

    /**
     * Completes {@code after} once the chain returned normally: now, or when the asynchronous cycle ends. An
     * upgraded connection ({@code 101}) is complete with its upgrade, also where the container runs it as an
     * asynchronous cycle until the connection closes (Jetty): its life is not a request's, and concurrency limits
     * do not cover it.
     */
    private static void completeAfterChain(HttpServletRequest http, HttpServletResponse out, AfterResponse after) {
        if (http.isAsyncStarted() && out.getStatus() != HttpServletResponse.SC_SWITCHING_PROTOCOLS) {
            http.getAsyncContext().addListener(new CycleEndListener(new AsyncCycleEnd(after, out::getStatus)));
        } else {
            after.completed(out.getStatus());
        }
    }

    private void filter(HttpServletRequest http, HttpServletResponse out, FilterChain chain)
            throws IOException, ServletException {
        ServletRequest request = http;
        ServletResponse response = out;
        AdapterLifecycle.Current<PathPolicies> a = lifecycle.current();
        if (a == null) {
            chain.doFilter(request, response);
            return;
        }
        String path = ServletRequestView.pathWithinApplication(http);
        List<RateLimitGate.Policy> candidates = a.snapshot().matcher().matching(http.getMethod(), path);
        if (candidates.isEmpty()) {
            chain.doFilter(request, response);
            return;
        }
        Verdict verdict = a.gate().decide(new ServletRequestView(http, path, a.clientAddress()), candidates,
                http.getAttribute(ChargedPolicies.ATTRIBUTE));
        if (verdict.charged().isPresent()) {
            http.setAttribute(ChargedPolicies.ATTRIBUTE, verdict.charged().get());
        }
        for (RateLimitHeaders.Header header : verdict.headers()) {
            out.setHeader(header.name(), header.value());
        }
        if (!verdict.admitted()) {
            refuse(out, verdict);
            return;
        }
        AfterResponse after = verdict.afterResponse();
        if (after.isEmpty()) {
            chain.doFilter(request, response);
            return;
        }
        try {
            chain.doFilter(request, response);
        } catch (IOException | ServletException | RuntimeException | Error e) {
            // the container answers 500 (or its error page) unless the response was already on its way
            after.completed(out.isCommitted() ? out.getStatus() : 500);
            throw e;
        }
        completeAfterChain(http, out, after);
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

    private static void refuse(HttpServletResponse response, Verdict verdict) throws IOException {
        byte[] body = verdict.problem().toJson().getBytes(StandardCharsets.UTF_8);
        response.setStatus(verdict.status());
        response.setContentType(ProblemDetails.MEDIA_TYPE);
        response.setContentLength(body.length);
        try (OutputStream stream = response.getOutputStream()) {
            stream.write(body);
        }
    }

    /** Lets go of the application's runtime; the last user closes its Redis pool. */
    @Override
    public void destroy() {
        lifecycle.close();
    }

    private static ClassLoader applicationClassLoader(ServletContext context) {
        try {
            ClassLoader loader = context.getClassLoader();
            if (loader != null) {
                return loader;
            }
        } catch (SecurityException | UnsupportedOperationException e) {
            // a programmatically added listener's view of the context; the TCCL is the application's too
        }
        return Thread.currentThread().getContextClassLoader();
    }

    private static Map<String, String> initParameters(FilterConfig config) {
        Map<String, String> values = new HashMap<>();
        for (String key : Collections.list(config.getInitParameterNames())) {
            values.put(key, config.getInitParameter(key));
        }
        return values;
    }

    private static Map<String, String> contextParameters(ServletContext context) {
        Map<String, String> values = new HashMap<>();
        for (String key : Collections.list(context.getInitParameterNames())) {
            values.put(key, context.getInitParameter(key));
        }
        return values;
    }
}
