package dev.sluice.internal.lock;

import java.lang.System.Logger.Level;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Undoes, off the caller's thread, a store call whose reply did not arrive (a timeout): the call may have taken a
 * lock or a permit nobody will renew, and a compare-and-delete gives it back. The caller has already been answered,
 * so a hung store costs it one timeout, not two.
 *
 * <p>Bounded: at most {@link #MAX_IN_FLIGHT} clean-ups run at once, on the watchdog's scheduler; one more is
 * dropped, which costs nothing but time, since the lease removes what it would have removed. Thread-safe.
 */
final class Cleanups {

    /** Clean-ups running at once; kept small so that a hung store never ties up the watchdog's threads. */
    static final int MAX_IN_FLIGHT = 1;

    private static final System.Logger LOG = System.getLogger("dev.sluice.lock");

    private final Executor executor;
    private final AtomicInteger inFlight = new AtomicInteger();

    Cleanups(Executor executor) {
        this.executor = executor;
    }

    /** Runs {@code undo} soon unless too many clean-ups run already; {@code what} names it in the log. */
    void submit(String what, Runnable undo) {
        if (inFlight.incrementAndGet() > MAX_IN_FLIGHT) {
            inFlight.decrementAndGet();
            LOG.log(Level.DEBUG, "Sluice: not cleaning up after " + what + " now; its lease removes it");
            return;
        }
        try {
            executor.execute(() -> {
                try {
                    undo.run();
                } catch (RuntimeException e) {
                    LOG.log(Level.DEBUG, "Sluice: clean-up after " + what + " failed; its lease removes it", e);
                } finally {
                    inFlight.decrementAndGet();
                }
            });
        } catch (RuntimeException e) {
            inFlight.decrementAndGet();
        }
    }
}
