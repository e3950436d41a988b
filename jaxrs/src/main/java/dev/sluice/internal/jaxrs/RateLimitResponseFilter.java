package dev.sluice.internal.jaxrs;

import dev.sluice.internal.http.RateLimitHeaders;
import dev.sluice.internal.http.Verdict;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.MediaType;

/**
 * Adds the informational rate-limit headers ({@code sluice.headers}) to the response of a request that
 * {@link RateLimitRequestFilter} admitted, describing the policy with the fewest tokens left. Refusals
 * already carry their headers, so they are left alone; so are responses of requests that were not checked.
 * Then, for a response without an entity, runs the verdict's {@link dev.sluice.internal.http.AfterResponse} with
 * the response status (the charge of policies that count only some statuses, the return of concurrency limits'
 * permits); a response with an entity is completed by {@link RateLimitWriterInterceptor} once the entity is
 * written, and an event stream without one (RESTEasy's SSE) when the request's asynchronous cycle ends
 * ({@link ServletAsyncCompletion}, and Sluice's servlet filter when it is in front). A response filter
 * does not run when the resource's exception reaches the container unmapped (runtimes before Jakarta REST 3.1,
 * which have no default exception mapper); on a servlet container Sluice's servlet filter (mapped to
 * {@code /*} by its web fragment) then completes it with status 500, from the request attribute
 * {@link dev.sluice.internal.http.AfterResponse#ATTRIBUTE}; without it such a request is not charged after its
 * response and its permits are renewed no longer than the concurrency limit's longest hold.
 *
 * <p>Immutable and thread-safe.
 */
final class RateLimitResponseFilter implements ContainerResponseFilter {

    private final JaxrsRateLimits shared;

    RateLimitResponseFilter(JaxrsRateLimits shared) {
        this.shared = shared;
    }

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        if (request.getProperty(RateLimitRequestFilter.VERDICT_PROPERTY) instanceof Verdict verdict) {
            for (RateLimitHeaders.Header header : verdict.headers()) {
                response.getHeaders().putSingle(header.name(), header.value());
            }
            if (verdict.afterResponse().isEmpty()) {
                return;
            }
            if (response.hasEntity() && !"HEAD".equals(request.getMethod())) {
                // written after this filter, perhaps much later (a StreamingOutput, a resumed response)
                request.setProperty(RateLimitWriterInterceptor.STATUS_PROPERTY, response.getStatus());
            } else if (MediaType.SERVER_SENT_EVENTS_TYPE.isCompatible(response.getMediaType())) {
                // the headers of an event stream whose events follow until its sink closes (RESTEasy): complete
                // when the request's asynchronous cycle ends (here, and in Sluice's servlet filter)
                Object servletRequest = request.getProperty(ServletAsyncCompletion.REQUEST_ATTRIBUTE);
                if (servletRequest != null) {
                    ServletAsyncCompletion.completeWhenCycleEnds(servletRequest, verdict.afterResponse(),
                            response.getStatus());
                }
            } else {
                verdict.afterResponse().completed(response.getStatus());
            }
        }
    }
}
