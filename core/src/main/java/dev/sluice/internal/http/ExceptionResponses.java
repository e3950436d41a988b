package dev.sluice.internal.http;

import dev.sluice.LockLostException;
import dev.sluice.LockNotAcquiredException;
import dev.sluice.PermitNotAcquiredException;
import dev.sluice.RateLimitExceededException;
import dev.sluice.SluiceException;
import dev.sluice.StoreUnavailableException;
import dev.sluice.internal.config.HeaderMode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The HTTP answer to a Sluice exception that escaped application code, for the exception mappers of the
 * JAX-RS module (and any servlet-side equivalent): the same statuses, headers and problem bodies as the
 * filters write. Stateless and thread-safe.
 * <ul>
 *   <li>{@link RateLimitExceededException}: 429 with {@code Retry-After}, the RateLimit headers and the
 *       quota-exceeded body, exactly as a filter's refusal;</li>
 *   <li>{@link LockNotAcquiredException}, {@link PermitNotAcquiredException}: 503 with {@code Retry-After}
 *       (1 second, or until the circuit breaker tries Redis again when it skipped it) and a body that names
 *       neither key nor semaphore and says whether the resource was busy or Redis could not be reached;</li>
 *   <li>{@link StoreUnavailableException} (the programmatic limiter with {@code on-redis-failure=deny}): 503
 *       with {@code Retry-After}, as the filters answer;</li>
 *   <li>{@link LockLostException}: 500 with a body that says a lock or permit was lost (neither key nor name);</li>
 *   <li>any other Sluice exception: 500 with a body that tells no internals.</li>
 * </ul>
 */
public final class ExceptionResponses {

    /** What to answer: status, headers and body. */
    public record Answer(int status, List<RateLimitHeaders.Header> headers, ProblemDetails problem) {
    }

    /**
     * The answers of one application, in its {@code sluice.headers} mode (from {@link AdapterSettings}), for an
     * adapter that maps exceptions.
     */
    public record InMode(HeaderMode mode) {

        /** The answer to {@code e}, by its type. */
        public Answer of(SluiceException e) {
            return ExceptionResponses.of(e, mode);
        }
    }

    private ExceptionResponses() {
    }

    /** The answer to {@code e}, by its type. */
    public static Answer of(SluiceException e, HeaderMode mode) {
        if (e instanceof RateLimitExceededException limited) {
            return rateLimited(limited, mode);
        }
        if (e instanceof LockNotAcquiredException || e instanceof PermitNotAcquiredException) {
            return busy(e);
        }
        if (e instanceof StoreUnavailableException unavailable) {
            long seconds = retryAfterSeconds(unavailable);
            return new Answer(503, List.of(RateLimitHeaders.retryAfter(seconds)),
                    ProblemDetails.serviceUnavailable(seconds));
        }
        return e instanceof LockLostException ? lost() : new Answer(500, List.of(), ProblemDetails.internalError());
    }

    public static Answer rateLimited(RateLimitExceededException e, HeaderMode mode) {
        List<dev.sluice.RateLimitDecision> decisions = List.of(e.decision());
        return new Answer(429, RateLimitHeaders.denied(decisions, mode), ProblemDetails.tooManyRequests(decisions));
    }

    /**
     * For {@link LockNotAcquiredException} and {@link PermitNotAcquiredException}: busy, or, when the cause is a
     * {@link StoreUnavailableException}, the store cannot be reached.
     */
    public static Answer busy(SluiceException e) {
        boolean unreachable = e.getCause() instanceof StoreUnavailableException;
        long seconds = unreachable ? retryAfterSeconds((StoreUnavailableException) e.getCause()) : 1;
        List<RateLimitHeaders.Header> headers = new ArrayList<>(1);
        headers.add(RateLimitHeaders.retryAfter(seconds));
        return new Answer(503, headers, unreachable ? ProblemDetails.lockStoreUnreachable(seconds)
                : ProblemDetails.busy(seconds));
    }

    private static long retryAfterSeconds(StoreUnavailableException e) {
        return Math.max(1, RateLimitHeaders.ceilSeconds(e.retryAfter().map(Duration::toMillis).orElse(0L)));
    }

    public static Answer lost() {
        return new Answer(500, List.of(), ProblemDetails.lost());
    }
}
