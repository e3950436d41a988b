package dev.sluice;

import jakarta.ejb.ApplicationException;

/**
 * A lock or permit lease expired (or was taken over) while its holder still believed it held it.
 * Code that ran under the lock may have overlapped with another holder; fencing tokens let the
 * protected resource reject the stale holder's writes.
 *
 * <p>Thrown from an EJB business method, it reaches the caller as itself, not wrapped in an
 * {@code EJBException}: it is an application exception that rolls the container's transaction back
 * ({@code @ApplicationException(rollback = true, inherited = true)}). Where the EJB API is absent the JVM
 * ignores that annotation.
 */
@ApplicationException(rollback = true, inherited = true)
public class LockLostException extends SluiceException {
    private static final long serialVersionUID = 1L;

    /** The lock key or semaphore name. */
    private final String key;

    /**
     * @param key the lock key or semaphore name
     * @param message what happened
     */
    public LockLostException(String key, String message) {
        super(message);
        this.key = key;
    }

    /** {@return the lock key or semaphore name whose lease was lost} */
    public String key() {
        return key;
    }
}
