package dev.sluice;

import java.time.Duration;

/**
 * No permit of a distributed semaphore became free within the maximum wait, or Redis could not be
 * reached (then {@link #getCause()} says why). The guarded code did not run.
 */
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
