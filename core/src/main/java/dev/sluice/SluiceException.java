package dev.sluice;

/**
 * Root of every exception Sluice throws. Unchecked, so that guarded business methods keep their
 * signatures.
 *
 * <p>Instances are immutable and thread-safe.
 */
public class SluiceException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param message what went wrong */
    public SluiceException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong
     * @param cause the underlying failure
     */
    public SluiceException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * For exceptions thrown often on a known path, where a stack trace would cost and say nothing.
     *
     * @param message            what went wrong
     * @param cause              the underlying failure, or {@code null}
     * @param enableSuppression  whether suppressed exceptions are recorded
     * @param writableStackTrace whether the stack trace is filled in
     */
    protected SluiceException(String message, Throwable cause, boolean enableSuppression, boolean writableStackTrace) {
        super(message, cause, enableSuppression, writableStackTrace);
    }
}
