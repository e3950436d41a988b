package dev.sluice;

import java.time.Duration;

/**
 * A rate limit denied the call. Carries the policy and how long to wait before the next attempt can
 * succeed ({@link #retryAfter()}, exact, never rounded down), or {@code null} when it can never succeed
 * because the request costs more tokens than the bucket holds.
 */
public class RateLimitExceededException extends SluiceException {
    private static final long serialVersionUID = 1L;

    private final transient RateLimitDecision decision;

    public RateLimitExceededException(RateLimitDecision decision) {
        super("Rate limit '" + decision.policy() + "' exceeded; "
                + (decision.retryAfterMillis() < 0 ? "the cost exceeds the bucket capacity and can never be admitted"
                        : "retry after " + decision.retryAfterMillis() + " ms"));
        this.decision = decision;
    }

    /** The policy that denied the call. */
    public String policy() {
        return decision.policy();
    }

    /** Time until a retry can succeed, or {@code null} for never. */
    public Duration retryAfter() {
        return decision.retryAfterMillis() < 0 ? null : Duration.ofMillis(decision.retryAfterMillis());
    }

    /** The full decision, for writing headers. */
    public RateLimitDecision decision() {
        return decision;
    }
}
