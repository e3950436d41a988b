package dev.sluice.internal.jaxrs;

import dev.sluice.SluiceException;
import dev.sluice.internal.http.ExceptionResponses;
import dev.sluice.internal.http.ProblemDetails;
import dev.sluice.internal.http.RateLimitHeaders;

import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;

/**
 * Maps Sluice's exceptions thrown by resource methods (through {@code @Locked}, {@code @Bounded} or the
 * programmatic API) to the answers of {@link ExceptionResponses} instead of a bare 500:
 * {@code LockNotAcquiredException}, {@code PermitNotAcquiredException} and {@code StoreUnavailableException}
 * to 503 with {@code Retry-After}, {@code RateLimitExceededException} to 429 with the RateLimit headers,
 * {@code LockLostException} and the rest to a 500 without internals; each with a problem body.
 *
 * <p>It maps {@link SluiceException}, the root, so that an application's own mapper for any subclass is
 * nearer to the exception and wins on every JAX-RS runtime (the specification's nearest-superclass rule); it
 * is registered by {@code RateLimitFeature} at {@link #PRIORITY}, below an application's providers, for the
 * runtimes that break ties by priority. Immutable and thread-safe.
 */
public final class SluiceExceptionMapper implements ExceptionMapper<SluiceException> {

    /** {@code Priorities.USER + 1000}: below every application mapper of default priority. */
    public static final int PRIORITY = Priorities.USER + 1000;

    private final ExceptionResponses.InMode answers;

    /** @param answers the answers in the application's {@code sluice.headers} mode */
    public SluiceExceptionMapper(ExceptionResponses.InMode answers) {
        this.answers = answers;
    }

    @Override
    public Response toResponse(SluiceException e) {
        ExceptionResponses.Answer answer = answers.of(e);
        Response.ResponseBuilder response = Response.status(answer.status())
                .type(ProblemDetails.MEDIA_TYPE)
                .entity(answer.problem().toJson());
        for (RateLimitHeaders.Header header : answer.headers()) {
            response.header(header.name(), header.value());
        }
        return response.build();
    }
}
