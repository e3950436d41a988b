package dev.sluice;

import dev.sluice.SluiceException;

/** The store (Redis) could not be reached or failed; rate limits then follow {@code sluice.on-redis-failure}. */
public class StoreUnavailableException extends SluiceException {
    private static final long serialVersionUID = 1L;

    public StoreUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
