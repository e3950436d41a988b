package dev.sluice;

import java.time.Duration;
import java.util.Optional;

import jakarta.ejb.ApplicationException;

/**
 * The store (Redis) could not be reached, failed, or is being skipped after repeated failures (the circuit
 * breaker is open). Rate limits then follow their policy's {@code on-redis-failure} (by default
 * {@code sluice.on-redis-failure}); locks and semaphores wrap it in
 * {@link LockNotAcquiredException} / {@link PermitNotAcquiredException} when acquiring and throw it as it
 * is from other calls.
 *
 * <p>Immutable and thread-safe.
 *
 * <p>Thrown from an EJB business method, it reaches the caller as itself, not wrapped in an
 * {@code EJBException}: it is an application exception that rolls the container's transaction back
 * ({@code @ApplicationException(rollback = true, inherited = true)}). Where the EJB API is absent the JVM
 * ignores that annotation.
 */
@ApplicationException(rollback = true, inherited = true)
public class StoreUnavailableException extends SluiceException {
    private static final long serialVersionUID = 1L;

    /** Milliseconds until the store is tried again when the breaker skipped it; -1 for a real failure. */
    private final long retryAfterMillis;

    /**
     * @param message what failed
     * @param cause the Redis client's exception
     */
    public StoreUnavailableException(String message, Throwable cause) {
        super(message, cause);
        this.retryAfterMillis = -1;
    }

    /**
     * The store was not asked because the circuit breaker is open; no stack trace, since it is thrown for every
     * call meanwhile and the trace would say nothing.
     *
     * @param message          what was not tried, and for how long
     * @param retryAfterMillis time until the breaker lets the next call through
     */
    protected StoreUnavailableException(String message, long retryAfterMillis) {
        super(message, null, false, false);
        this.retryAfterMillis = Math.max(0, retryAfterMillis);
    }

    /**
     * The store was not asked because the circuit breaker is open.
     *
     * @param retryAfterMillis time until the breaker lets the next call through
     * @return the exception to throw
     */
    public static StoreUnavailableException skipped(long retryAfterMillis) {
        return skipped("the call", retryAfterMillis);
    }

    /**
     * The store was not asked for {@code what} because the circuit breaker is open.
     *
     * @param what             what was not tried, e.g. {@code lock 'order:42'}
     * @param retryAfterMillis time until the breaker lets the next call through
     * @return the exception to throw
     */
    public static StoreUnavailableException skipped(String what, long retryAfterMillis) {
        return new StoreUnavailableException("Sluice: " + what + " was not tried: Redis failed repeatedly and is"
                + " skipped (circuit breaker open) for another " + retryAfterMillis + " ms", retryAfterMillis);
    }

    /** {@return whether the store was not asked at all (the circuit breaker is open): nothing reached it} */
    public boolean isSkipped() {
        return retryAfterMillis >= 0;
    }

    /** {@return when the store was skipped by the open circuit breaker: the time until it is tried again} */
    public Optional<Duration> retryAfter() {
        return retryAfterMillis < 0 ? Optional.empty() : Optional.of(Duration.ofMillis(retryAfterMillis));
    }
}
