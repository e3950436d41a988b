package dev.sluice;

import java.time.Duration;
import java.util.Optional;

import jakarta.ejb.ApplicationException;

/**
 * A rate limit denied the call. Carries the policy, the full {@link RateLimitDecision} and how long to wait
 * before the next attempt can succeed ({@link #retryAfter()}, exact, never rounded down; empty when it can
 * never succeed because the request costs more tokens than the bucket holds).
 *
 * <p>Immutable and thread-safe; serializable with its decision, so it keeps its meaning across a remote EJB
 * call.
 *
 * <p>Thrown from an EJB business method, it reaches the caller as itself, not wrapped in an
 * {@code EJBException}: it is an application exception that rolls the container's transaction back
 * ({@code @ApplicationException(rollback = true, inherited = true)}). Where the EJB API is absent the JVM
 * ignores that annotation.
 */
@ApplicationException(rollback = true, inherited = true)
public class RateLimitExceededException extends SluiceException {
    private static final long serialVersionUID = 2L;

    /** The denied decision. */
    private final RateLimitDecision decision;

    /** @param decision the denied decision */
    public RateLimitExceededException(RateLimitDecision decision) {
        super("Rate limit '" + decision.policy() + "' exceeded; "
                + (decision.never() ? "the cost exceeds the bucket capacity and can never be admitted"
                        : "retry after " + decision.retryAfterMillis() + " ms"));
        this.decision = decision;
    }

    /** {@return the policy that denied the call} */
    public String policy() {
        return decision.policy();
    }

    /** {@return time until a retry can succeed; empty when it never can} */
    public Optional<Duration> retryAfter() {
        return decision.never() ? Optional.empty() : Optional.of(Duration.ofMillis(decision.retryAfterMillis()));
    }

    /** {@return the full decision, for writing headers} */
    public RateLimitDecision decision() {
        return decision;
    }
}
