package dev.sluice.internal.metrics;

import dev.sluice.internal.config.PolicyConfig;

/**
 * What became of one request under one rate-limit policy, as the rate-limit engine reports it: the engine decides
 * and tells; listeners count ({@link SluiceMetrics#rateLimits()}) or log (the shadow log), and the decision knows
 * none of them. Each request tells each of its policies at most one of {@link Outcome#ALLOWED}, {@link Outcome#ALLOWED_LOCALLY},
 * {@link Outcome#DENIED}, {@link Outcome#DENIED_LOCALLY}, {@link Outcome#WOULD_DENY} or {@link Outcome#EXEMPT}
 * before it runs, and {@link Outcome#CHARGED_AFTER_RESPONSE} after its response; {@link Outcome#REDIS_ERROR} and
 * {@link Outcome#FAILED_OPEN} once per call of the policy that the store could not decide. Implementations are
 * called on the request's thread and must be thread-safe and quick.
 */
@FunctionalInterface
public interface RateLimitEvents {

    /** What one policy made of one request; the meaning users read is in {@code docs/observability.md}. */
    enum Outcome {
        /** The policy admitted a request that went ahead (for a {@code count=} policy: checked, not charged). */
        ALLOWED,
        /**
         * The policy admitted a request that went ahead from the node's local budget, without asking the store about
         * its rate (an {@link #ALLOWED} too).
         */
        ALLOWED_LOCALLY,
        /** The policy refused the request. */
        DENIED,
        /** The node refused the request from its deny cache, without asking the store (a {@link #DENIED} too). */
        DENIED_LOCALLY,
        /** A shadowed policy would have refused the request, which it let through. */
        WOULD_DENY,
        /** The policy was charged after a response whose status it counts. */
        CHARGED_AFTER_RESPONSE,
        /** The client is exempt from the policy: neither checked nor charged. */
        EXEMPT,
        /** The store could not be asked about the request. */
        REDIS_ERROR,
        /** The request was admitted unchecked under {@code on-redis-failure=allow}. */
        FAILED_OPEN
    }

    /** Hears nothing. */
    RateLimitEvents NONE = (policy, rawKey, outcome) -> {
    };

    /**
     * @param rawKey the request's key material for the policy, as derived from the request (to be shown only as
     *               {@code LoggedKeys} shows it); null for an {@link Outcome#EXEMPT exempt} request
     */
    void on(PolicyConfig policy, String rawKey, Outcome outcome);

    /** Tells this listener, then {@code next}. */
    default RateLimitEvents and(RateLimitEvents next) {
        return (policy, rawKey, outcome) -> {
            on(policy, rawKey, outcome);
            next.on(policy, rawKey, outcome);
        };
    }
}
