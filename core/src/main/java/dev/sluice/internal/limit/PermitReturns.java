package dev.sluice.internal.limit;

import dev.sluice.internal.lease.Watchdog;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

/**
 * Returns, off the caller's thread, permits of concurrency limits that no request holds although the store may
 * still count them: those a decision whose reply was lost may have taken, and those whose return failed or was
 * skipped by the open circuit breaker. A return is tried every {@link #RETRY_MILLIS} (every third of the lease
 * when that is shorter), on the watchdog's scheduler, until the store confirms it or the lease has run out, after
 * which the permit is gone anyway. So a permit comes back within one such period of Redis answering again.
 *
 * <p>Owner-checked: {@code concurrency-release.lua} removes a permit only under the request's own permit id, which
 * no other request uses. Stateless; thread-safe.
 */
final class PermitReturns {

    /** The longest time between two tries of one return. */
    static final long RETRY_MILLIS = 1000;

    private PermitReturns() {
    }

    /**
     * Tries {@code release} in the background until it returns or {@code leaseMillis} (the longest lease of the
     * permits, counted from now) has passed.
     *
     * @param release one owner-checked return of the permits; a {@code RuntimeException} (store unreachable, breaker
     *                open) is retried
     * @param nanos   the monotonic clock the lease is measured on, in ns (the watchdog's)
     * @param what    for the log
     */
    static void inBackground(Watchdog watchdog, LongSupplier nanos, long leaseMillis, Runnable release, String what) {
        long period = Math.max(1, Math.min(leaseMillis / 3, RETRY_MILLIS));
        long until = nanos.getAsLong() + TimeUnit.MILLISECONDS.toNanos(leaseMillis);
        AtomicReference<Runnable> stop = new AtomicReference<>();
        // The watchdog's renewal of a "lease" of three periods is the retry schedule: it calls every period, and
        // retries a call that throws at the next one. Returning true keeps it quiet; stop ends it.
        stop.set(watchdog.keep(3 * period, ignored -> {
            if (nanos.getAsLong() - until < 0) {
                release.run();
            }
            Runnable done = stop.get();
            if (done != null) {
                done.run();
            }
            return true;
        }, what));
    }
}
