package dev.sluice.internal.http;

import dev.sluice.RateLimitDecision;
import dev.sluice.internal.config.HeaderMode;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What an adapter does with a request after {@link RateLimitGate#decide}: let it through (with informational
 * headers), or answer it with a status, headers and a problem body; and which policies to record as decided
 * on the request. Immutable and thread-safe.
 */
public final class Verdict {

    /** The four ways a rate-limited request can go. */
    public enum Outcome {
        /** Every policy admitted the request and all were charged. */
        ALLOWED,
        /** At least one policy refused; nothing was charged: 429. */
        DENIED,
        /** The store cannot be asked and every policy says {@code on-redis-failure=allow}: admitted without headers. */
        UNAVAILABLE_ALLOWED,
        /** The store cannot be asked and a policy says {@code on-redis-failure=deny}: 503. */
        UNAVAILABLE_DENIED
    }

    /** The verdict for a request no policy applies to: admitted, nothing to record, the store not asked. */
    public static final Verdict NOTHING_TO_CHECK = new Verdict(Outcome.ALLOWED, List.of(), 0, HeaderMode.NONE, null,
            AfterResponse.NONE);

    private final Outcome outcome;
    private final List<RateLimitDecision> decisions;
    private final long retryAfterSeconds;
    private final HeaderMode headerMode;
    private final Set<String> charged;
    private final AfterResponse afterResponse;

    /**
     * @param decisions         the store's decisions of the policies that decide (enforced ones), which the headers
     *                          and body describe; empty when the store was not asked
     * @param retryAfterSeconds for {@link Outcome#UNAVAILABLE_DENIED}: seconds until the store is tried again
     *                          (at least 1); 0 otherwise
     */
    Verdict(Outcome outcome, List<RateLimitDecision> decisions, long retryAfterSeconds, HeaderMode headerMode) {
        this(outcome, decisions, retryAfterSeconds, headerMode, null, AfterResponse.NONE);
    }

    private Verdict(Outcome outcome, List<RateLimitDecision> decisions, long retryAfterSeconds, HeaderMode headerMode,
                    Set<String> charged, AfterResponse afterResponse) {
        this.outcome = outcome;
        this.decisions = List.copyOf(decisions);
        this.retryAfterSeconds = retryAfterSeconds;
        this.headerMode = headerMode;
        this.charged = charged;
        this.afterResponse = afterResponse;
    }

    /** This verdict, telling the adapter to record {@code charged} as the request's decided policies. */
    Verdict recording(Set<String> charged) {
        return new Verdict(outcome, decisions, retryAfterSeconds, headerMode, Set.copyOf(charged), afterResponse);
    }

    /** This verdict, leaving {@code after} to the adapter once the response status is known (if admitted). */
    Verdict after(AfterResponse after) {
        if (after == afterResponse) {
            return this;
        }
        return new Verdict(outcome, decisions, retryAfterSeconds, headerMode, charged, after);
    }

    /**
     * What to do once the response status is known; the adapter calls {@link AfterResponse#completed(int)} for
     * an admitted request (a refused one has nothing to do: {@link AfterResponse#NONE}).
     */
    public AfterResponse afterResponse() {
        return admitted() ? afterResponse : AfterResponse.NONE;
    }

    public Outcome outcome() {
        return outcome;
    }

    /** The store's decisions of the policies that decide; empty when the store was not asked. */
    public List<RateLimitDecision> decisions() {
        return decisions;
    }

    /**
     * The new value of the request's {@link ChargedPolicies#ATTRIBUTE}: the policies decided before and by
     * this verdict. Empty when nothing was decided (the attribute stays as it is).
     */
    public Optional<Set<String>> charged() {
        return Optional.ofNullable(charged);
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

    /** Headers for the response, admitted or not, in the adapter's {@code sluice.headers} mode. */
    public List<RateLimitHeaders.Header> headers() {
        return switch (outcome) {
            case ALLOWED -> RateLimitHeaders.allowed(decisions, headerMode);
            case DENIED -> RateLimitHeaders.denied(decisions, headerMode);
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

    @Override
    public String toString() {
        return "Verdict[" + outcome + ", " + decisions + ", retryAfter=" + retryAfterSeconds + "s, charged=" + charged + "]";
    }
}
