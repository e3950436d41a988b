package dev.sluice;

import java.time.Duration;

/**
 * A distributed lock could not be acquired within its maximum wait, or Redis could not be reached
 * (then {@link #getCause()} says why). The guarded code did not run.
 */
public class LockNotAcquiredException extends SluiceException {
    private static final long serialVersionUID = 1L;

    private final String key;
    private final Duration waited;

    public LockNotAcquiredException(String key, Duration waited, Throwable cause) {
        super("Lock '" + key + "' not acquired after waiting " + waited.toMillis() + " ms"
                + (cause == null ? "" : ": " + cause.getMessage()), cause);
        this.key = key;
        this.waited = waited;
    }

    /** The rendered lock key (without the Redis key prefix). */
    public String key() {
        return key;
    }

    /** How long the caller waited before giving up. */
    public Duration waited() {
        return waited;
    }
}
