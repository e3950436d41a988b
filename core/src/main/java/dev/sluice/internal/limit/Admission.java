package dev.sluice.internal.limit;

import dev.sluice.RateLimitDecision;
import dev.sluice.StoreUnavailableException;

import java.util.List;

/**
 * What {@link RateLimitEngine#admit(List)} made of one request: the rule the HTTP gate and the programmatic limiter
 * share, which each translates for its caller (a status and headers; a decision or an exception). Immutable.
 *
 * @param outcome   how the request goes
 * @param decisions when the store answered, one decision per call in order; for a request refused from the deny
 *                  cache, only the refusing ones; empty when the store could not be asked
 * @param deciding  the decisions of the {@link ChargeMode#decides() deciding} calls (or the deny cache's refusals):
 *                  what a response tells; empty when the store could not be asked
 * @param failure   why the store could not be asked, for the two {@code UNAVAILABLE} outcomes; else null
 */
public record Admission(Outcome outcome, List<RateLimitDecision> decisions, List<RateLimitDecision> deciding,
                        StoreUnavailableException failure) {

    /** The four ways a rate-limited request can go. */
    public enum Outcome {
        /** Every deciding policy admitted the request, and the calls were charged as their modes say. */
        ADMITTED,
        /** A deciding policy refused the request, or the deny cache did; nothing was charged by the refusal. */
        REFUSED,
        /** The store cannot be asked and every deciding policy says {@code on-redis-failure=allow}. */
        UNAVAILABLE_ADMITTED,
        /** The store cannot be asked and a deciding policy says {@code on-redis-failure=deny}. */
        UNAVAILABLE_REFUSED
    }

    public Admission {
        decisions = List.copyOf(decisions);
        deciding = List.copyOf(deciding);
    }

    static Admission unavailable(Outcome outcome, StoreUnavailableException failure) {
        return new Admission(outcome, List.of(), List.of(), failure);
    }
}
