package dev.sluice.internal.jaxrs;

import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.http.ChargedPolicies;
import dev.sluice.internal.http.KeyResolution;
import dev.sluice.internal.http.ProblemDetails;
import dev.sluice.internal.http.RateLimitHeaders;
import dev.sluice.internal.http.Verdict;
import dev.sluice.internal.limit.RateLimitEngine.LimitCall;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.Response;

import java.util.ArrayList;
import java.util.List;

/**
 * Decides the policies of one resource method for each request, all in one store call, and aborts with 429
 * (or 503 when the store is down and {@code sluice.on-redis-failure=deny}) before the resource runs.
 *
 * <p>A policy already decided for this request by the servlet filter is skipped: the servlet filter records
 * it in a request attribute, which JAX-RS on a servlet container exposes as a request property. The
 * verdict of an admitted request is handed to {@link RateLimitResponseFilter} in a request property.
 *
 * <p>One instance per resource method, created at deployment; immutable and thread-safe.
 */
final class RateLimitRequestFilter implements ContainerRequestFilter {

    /** Request property carrying the {@link Verdict} of an admitted request to the response filter. */
    static final String VERDICT_PROPERTY = "dev.sluice.jaxrs.verdict";

    /** One policy of the method with its key derivation, built at deployment. */
    record Limit(PolicyConfig policy, KeyResolution key) {
    }

    private final List<Limit> limits;
    private final JaxrsRateLimits shared;

    RateLimitRequestFilter(List<Limit> limits, JaxrsRateLimits shared) {
        this.limits = List.copyOf(limits);
        this.shared = shared;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        Object charged = request.getProperty(ChargedPolicies.ATTRIBUTE);
        ContainerRequestView view = new ContainerRequestView(request, shared.clientAddress());
        List<LimitCall> calls = new ArrayList<>(limits.size());
        List<String> decided = new ArrayList<>(limits.size());
        for (Limit limit : limits) {
            PolicyConfig policy = limit.policy();
            if (!policy.appliesTo(request.getMethod()) || ChargedPolicies.contains(charged, policy.name())) {
                continue;
            }
            String rawKey = limit.key().rawKey(view);
            if (rawKey != null) {
                calls.add(new LimitCall(policy, rawKey, policy.cost()));
                decided.add(policy.name());
            }
        }
        if (calls.isEmpty()) {
            return;
        }
        shared.noticeMissingPeer(view);
        Verdict verdict = shared.gate().check(calls);
        request.setProperty(ChargedPolicies.ATTRIBUTE, ChargedPolicies.with(charged, decided));
        if (verdict.admitted()) {
            request.setProperty(VERDICT_PROPERTY, verdict);
            return;
        }
        Response.ResponseBuilder refusal = Response.status(verdict.status())
                .type(ProblemDetails.MEDIA_TYPE)
                .entity(verdict.problem().toJson());
        for (RateLimitHeaders.Header header : verdict.headers(shared.headerMode())) {
            refusal.header(header.name(), header.value());
        }
        request.abortWith(refusal.build());
    }
}
