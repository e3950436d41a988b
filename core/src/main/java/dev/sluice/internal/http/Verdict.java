package dev.sluice.internal.http;

import dev.sluice.RateLimitDecision;
import dev.sluice.internal.config.HeaderMode;

import java.util.List;

/**
 * What a filter does with a request after {@link RateLimitGate#check}: let it through (with informational
 * headers), or answer it with a status, headers and a problem body. Immutable and thread-safe.
 *
 * @param outcome           what happened
 * @param decisions         the store's decisions, one per call; empty when the store was not consulted
 * @param retryAfterSeconds for {@link Outcome#UNAVAILABLE_DENIED}: seconds until the store is tried again
 *                          (at least 1); 0 otherwise
 */
public record Verdict(Outcome outcome, List<RateLimitDecision> decisions, long retryAfterSeconds) {

    /** The four ways a rate-limited request can go. */
    public enum Outcome {
        /** Every policy admitted the request and all were charged. */
        ALLOWED,
        /** At least one policy refused; nothing was charged: 429. */
        DENIED,
        /** The store is unreachable and {@code sluice.on-redis-failure=allow}: admitted without headers. */
        UNAVAILABLE_ALLOWED,
        /** The store is unreachable and {@code sluice.on-redis-failure=deny}: 503. */
        UNAVAILABLE_DENIED
    }

    /** The verdict for a request with no calls: admitted, and the store was not consulted. */
    public static final Verdict NOTHING_TO_CHECK = new Verdict(Outcome.ALLOWED, List.of(), 0);

    public Verdict {
        decisions = List.copyOf(decisions);
    }

    /** Whether the protected resource may run. */
    public boolean admitted() {
        return outcome == Outcome.ALLOWED || outcome == Outcome.UNAVAILABLE_ALLOWED;
    }

    /** The status to answer with when not {@link #admitted()}: 429 or 503. */
    public int status() {
        return switch (outcome) {
            case DENIED -> 429;
            case UNAVAILABLE_DENIED -> 503;
            default -> throw new IllegalStateException("an admitted request has no refusal status");
        };
    }

    /** Headers for the response, admitted or not, in the given mode. */
    public List<RateLimitHeaders.Header> headers(HeaderMode mode) {
        return switch (outcome) {
            case ALLOWED -> RateLimitHeaders.allowed(decisions, mode);
            case DENIED -> RateLimitHeaders.denied(decisions, mode);
            case UNAVAILABLE_DENIED -> List.of(RateLimitHeaders.retryAfter(retryAfterSeconds));
            case UNAVAILABLE_ALLOWED -> List.of();
        };
    }

    /** The problem body when not {@link #admitted()}. */
    public ProblemDetails problem() {
        return switch (outcome) {
            case DENIED -> ProblemDetails.tooManyRequests(decisions);
            case UNAVAILABLE_DENIED -> ProblemDetails.serviceUnavailable(retryAfterSeconds);
            default -> throw new IllegalStateException("an admitted request has no problem body");
        };
    }
}
