package dev.sluice.internal.lock;

import dev.sluice.LockLostException;
import dev.sluice.internal.lease.Lease;
import dev.sluice.internal.lease.Watchdog;

import java.lang.System.Logger.Level;
import java.util.function.Supplier;

/**
 * What a held lock and a held permit share: the lease the store last confirmed, its renewals by the watchdog, and
 * giving it back once, through the guard's one hand-over ({@link Guard#giveBack}). Thread-safe.
 */
abstract class Hold implements Watchdog.Renewable {

    private static final System.Logger LOG = System.getLogger("dev.sluice.lock");

    final Guard<?> guard;
    final Guard.Grant grant;
    /** The owner token or permit id under which the store holds it. */
    final String id;
    final Lease lease;
    private Watchdog.Renewal renewal;

    Hold(Guard<?> guard, Guard.Grant grant, String id, Lease lease) {
        this.guard = guard;
        this.grant = grant;
        this.id = id;
        this.lease = lease;
    }

    /** Starts renewing the lease from when the store call that granted it started; once, right after construction. */
    final void startWatchdog() {
        renewal = guard.parts.watchdog().watch(lease, grant.grantedAtNanos(), this);
    }

    /** Sets the lease in the store to {@code leaseMillis}: false when it is gone. */
    abstract boolean extendInStore(long leaseMillis);

    /** Releases it in the store: false when its lease had run out. */
    abstract boolean releaseInStore();

    /** What the log says when the store cannot be reached to release it (still within its lease). */
    abstract String unreachableWarning();

    /** What the holder is told when it was found lost at release. */
    abstract LockLostException lostAtRelease();

    @Override
    public boolean renew(long leaseMillis) {
        boolean renewed = extendInStore(leaseMillis);
        if (renewed) {
            guard.metrics.renewed();
        }
        return renewed;
    }

    @Override
    public String describe() {
        return guard.describe();
    }

    /** The renewals from now on ask for the lease just set, by a store call started at {@code startedNanos}. */
    final void leaseChanged(long startedNanos) {
        renewal.leaseChanged(startedNanos);
    }

    /**
     * Gives it back in the store, handed to a waiter of this JVM when one waits, once.
     *
     * @throws LockLostException when the lease had been lost
     */
    final void giveBack() {
        if (!lease.isHeld()) {
            lease.reportUnconfirmed(Lease.UNCONFIRMED);
        }
        renewal.cancel();
        guard.metrics.released(guard.clock.getAsLong() - grant.acquiredAtNanos());
        boolean released;
        RuntimeException unreachable = null;
        try {
            released = guard.giveBack(grant, id, this::releaseInStore);
        } catch (RuntimeException e) {
            // The store is unreachable: what it holds goes away when its lease runs out.
            released = lease.isHeld();
            unreachable = e;
            if (released) {
                LOG.log(Level.WARNING, unreachableWarning(), e);
            }
        }
        if (!released || lease.isLost()) {
            lease.markLost(Lease.lostAtRelease(unreachable));
            throw lostAtRelease();
        }
    }

    /**
     * {@link #giveBack} at the end of a transaction, on the thread that completed it: nobody to throw to, so a loss
     * or a failure is logged.
     *
     * @param failure what the log says when it could not be given back
     */
    static void afterTransaction(Runnable giveBack, Supplier<String> failure) {
        try {
            giveBack.run();
        } catch (LockLostException e) {
            // Warned about once, by the lease; the transaction's own thread has moved on.
            LOG.log(Level.DEBUG, "Sluice: " + e.getMessage() + " (found when its transaction completed)");
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, failure.get(), e);
        }
    }
}
