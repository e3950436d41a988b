package dev.sluice;

/**
 * Root of every exception Sluice throws. Unchecked, so that guarded business methods keep their
 * signatures.
 *
 * <p>Instances are immutable and thread-safe.
 */
public class SluiceException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public SluiceException(String message) {
        super(message);
    }

    public SluiceException(String message, Throwable cause) {
        super(message, cause);
    }

    /** For exceptions thrown often on a known path, where a stack trace would cost and say nothing. */
    protected SluiceException(String message, Throwable cause, boolean enableSuppression, boolean writableStackTrace) {
        super(message, cause, enableSuppression, writableStackTrace);
    }
}
