package dev.sluice.internal.jaxrs;

import dev.sluice.internal.http.AdapterLifecycle;
import dev.sluice.internal.http.AfterResponse;
import dev.sluice.internal.http.ChargedPolicies;
import dev.sluice.internal.http.MethodLimits;
import dev.sluice.internal.http.ProblemDetails;
import dev.sluice.internal.http.RateLimitGate;
import dev.sluice.internal.http.RateLimitHeaders;
import dev.sluice.internal.http.Verdict;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.Response;

/**
 * Translates between JAX-RS and the one rate-limit decision ({@link RateLimitGate#decide}) for the policies of
 * one resource method: aborts with the verdict's status, headers and problem body before the resource runs,
 * or hands an admitted verdict to {@link RateLimitResponseFilter} in a request property.
 *
 * <p>Policies already decided for this request by the servlet filter are recorded in a request attribute,
 * which JAX-RS on a servlet container exposes as a request property; the gate skips them.
 *
 * <p>One instance per resource method, created at deployment; its policies are looked up in {@link JaxrsRateLimits}
 * on each request (one volatile read), since a reload may replace them. Immutable and thread-safe.
 */
final class RateLimitRequestFilter implements ContainerRequestFilter {

    /** Request property carrying the {@link Verdict} of an admitted request to the response filter. */
    static final String VERDICT_PROPERTY = "dev.sluice.jaxrs.verdict";

    private final int method;
    private final JaxrsRateLimits shared;

    /** @param method the resource method's index in {@code shared}, where its policies in force are kept */
    RateLimitRequestFilter(int method, JaxrsRateLimits shared) {
        this.method = method;
        this.shared = shared;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        AdapterLifecycle.Current<MethodLimits> now = shared.current();
        if (now == null) {
            // the application was undeployed while this request was on its way
            return;
        }
        ContainerRequestView view = new ContainerRequestView(request, now.clientAddress());
        Verdict verdict = now.gate().decide(view, now.snapshot().policies(method),
                request.getProperty(ChargedPolicies.ATTRIBUTE));
        if (verdict.charged().isEmpty()) {
            return;
        }
        shared.noticeMissingPeer(view);
        request.setProperty(ChargedPolicies.ATTRIBUTE, verdict.charged().get());
        if (verdict.admitted()) {
            request.setProperty(VERDICT_PROPERTY, verdict);
            if (!verdict.afterResponse().isEmpty()) {
                // on a servlet container a request attribute: the servlet filter's safety net for unmapped exceptions
                request.setProperty(AfterResponse.ATTRIBUTE, verdict.afterResponse());
            }
            return;
        }
        Response.ResponseBuilder refusal = Response.status(verdict.status())
                .type(ProblemDetails.MEDIA_TYPE)
                .entity(verdict.problem().toJson());
        for (RateLimitHeaders.Header header : verdict.headers()) {
            refusal.header(header.name(), header.value());
        }
        request.abortWith(refusal.build());
    }
}
