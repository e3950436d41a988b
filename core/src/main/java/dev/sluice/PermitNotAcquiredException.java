package dev.sluice;

import java.time.Duration;

import jakarta.ejb.ApplicationException;

/**
 * No permit of a distributed semaphore became free within the maximum wait, or Redis could not be
 * reached (then {@link #getCause()} says why). The guarded code did not run.
 *
 * <p>Thrown from an EJB business method, it reaches the caller as itself, not wrapped in an
 * {@code EJBException}: it is an application exception that rolls the container's transaction back
 * ({@code @ApplicationException(rollback = true, inherited = true)}). Where the EJB API is absent the JVM
 * ignores that annotation.
 */
@ApplicationException(rollback = true, inherited = true)
public class PermitNotAcquiredException extends SluiceException {
    private static final long serialVersionUID = 1L;

    /** The semaphore name. */
    private final String name;
    /** How long the caller waited. */
    private final Duration waited;

    /**
     * @param name the semaphore name
     * @param waited how long the caller waited
     * @param cause the Redis failure, or {@code null} on a timeout
     */
    public PermitNotAcquiredException(String name, Duration waited, Throwable cause) {
        super("No permit of semaphore '" + name + "' acquired after waiting " + waited.toMillis() + " ms"
                + (cause == null ? "" : ": " + cause.getMessage()), cause);
        this.name = name;
        this.waited = waited;
    }

    /** {@return the semaphore name} */
    public String name() {
        return name;
    }

    /** {@return how long the caller waited before giving up} */
    public Duration waited() {
        return waited;
    }
}
