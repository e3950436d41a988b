package dev.sluice.internal.lock;

import dev.sluice.StoreUnavailableException;
import dev.sluice.internal.metrics.RedisStatus;
import dev.sluice.internal.redis.CircuitBreaker;

import java.util.function.Supplier;

/**
 * Store calls a caller of a lock or semaphore waits for, through the application's {@link CircuitBreaker}: while
 * it is open a call fails at once with {@link Skipped}, and every outcome counts in it and in the Redis status.
 * Renewals stay outside it, so a breaker opened by other callers never costs a holder its lease. Thread-safe.
 */
final class StoreCalls {

    private final CircuitBreaker breaker;
    private final RedisStatus status;

    StoreCalls(CircuitBreaker breaker, RedisStatus status) {
        this.breaker = breaker;
        this.status = status;
    }

    /**
     * @param what for the message when refused, e.g. {@code lock 'order:42'}
     * @throws StoreUnavailableException when the breaker is open
     * @throws RuntimeException from {@code call} when the store cannot be reached
     */
    <T> T call(String what, Supplier<T> call) {
        long ticket = breaker.enter();
        if (ticket == CircuitBreaker.REFUSED) {
            long wait = breaker.millisUntilProbe();
            throw new Skipped("Sluice: " + what + " was not tried: the store failed repeatedly and is skipped for "
                    + "another " + wait + " ms", wait);
        }
        T result;
        try {
            result = call.get();
        } catch (RuntimeException e) {
            breaker.onFailure(ticket, e);
            status.failed(e);
            throw e;
        }
        breaker.onSuccess(ticket);
        status.answered();
        return result;
    }

    /** A store call the open breaker did not let through: nothing reached the store, so nothing is to undo. */
    static final class Skipped extends StoreUnavailableException {
        private static final long serialVersionUID = 1L;

        Skipped(String message, long retryAfterMillis) {
            super(message, retryAfterMillis);
        }
    }
}
