package dev.sluice;

import java.time.Duration;

import jakarta.ejb.ApplicationException;

/**
 * A distributed lock could not be acquired within its maximum wait, or Redis could not be reached
 * (then {@link #getCause()} says why). The guarded code did not run.
 *
 * <p>Thrown from an EJB business method, it reaches the caller as itself, not wrapped in an
 * {@code EJBException}: it is an application exception that rolls the container's transaction back
 * ({@code @ApplicationException(rollback = true, inherited = true)}). Where the EJB API is absent the JVM
 * ignores that annotation.
 */
@ApplicationException(rollback = true, inherited = true)
public class LockNotAcquiredException extends SluiceException {
    private static final long serialVersionUID = 1L;

    /** The lock key. */
    private final String key;
    /** How long the caller waited. */
    private final Duration waited;

    /**
     * @param key the lock key
     * @param waited how long the caller waited
     * @param cause the Redis failure, or {@code null} on a timeout
     */
    public LockNotAcquiredException(String key, Duration waited, Throwable cause) {
        super("Lock '" + key + "' not acquired after waiting " + waited.toMillis() + " ms"
                + (cause == null ? "" : ": " + cause.getMessage()), cause);
        this.key = key;
        this.waited = waited;
    }

    /** {@return the rendered lock key (without the Redis key prefix)} */
    public String key() {
        return key;
    }

    /** {@return how long the caller waited before giving up} */
    public Duration waited() {
        return waited;
    }
}
