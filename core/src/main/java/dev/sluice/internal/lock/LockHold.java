package dev.sluice.internal.lock;

import dev.sluice.internal.lease.Watchdog;
import dev.sluice.internal.lease.Lease;
import dev.sluice.LockHandle;
import dev.sluice.LockLostException;
import dev.sluice.SluiceException;
import dev.sluice.StoreUnavailableException;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One acquisition of a lock by one thread, shared by the handles of its reentrant acquisitions: the owner
 * token, the fencing token, the lease as the store last confirmed it (its length is the last one set, by the
 * acquisition or by {@code extend}), and the reentrancy depth. The outermost handle's close releases it in the
 * store. Thread-safe.
 */
final class LockHold implements Watchdog.Renewable {

    private static final System.Logger LOG = System.getLogger("dev.sluice.lock");

    private final LockService service;
    private final DefaultDistributedLock lock;
    private final LockService.HoldKey holdKey;
    private final String owner;
    private final long fencingToken;
    private final Lease lease;
    private final LockService.Gate gate;
    private final long acquiredAtNanos;
    private Watchdog.Renewal renewal;
    private int depth;

    LockHold(LockService service, DefaultDistributedLock lock, LockService.HoldKey holdKey, String owner,
             long fencingToken, Lease lease, LockService.Gate gate, long acquiredAtNanos) {
        this.service = service;
        this.lock = lock;
        this.holdKey = holdKey;
        this.owner = owner;
        this.fencingToken = fencingToken;
        this.lease = lease;
        this.gate = gate;
        this.acquiredAtNanos = acquiredAtNanos;
    }

    /** @param grantedAtNanos when the store call that granted the lock started */
    void startWatchdog(long grantedAtNanos) {
        renewal = service.watchdog.watch(lease, grantedAtNanos, this);
    }

    @Override
    public boolean renew(long leaseMillis) {
        boolean renewed = service.lockStore.extend(lock.storeKey, owner, leaseMillis);
        if (renewed) {
            lock.metrics.renewed();
        }
        return renewed;
    }

    @Override
    public String describe() {
        return lock.describe();
    }

    /** A new handle for a (re)entry by the holding thread; refused when the lease is known lost. */
    synchronized LockHandle reenter() {
        if (!lease.isHeld()) {
            throw new LockLostException(lock.key(), "Lock '" + lock.key() + "' is held by this thread but its "
                    + "lease was lost; refusing to enter it again");
        }
        return enter();
    }

    /** The first handle, right after the store granted the lock. */
    synchronized LockHandle enter() {
        depth++;
        return new Handle();
    }

    private void exit() {
        synchronized (this) {
            if (--depth > 0) {
                return;
            }
        }
        service.holds.remove(holdKey, this);
        renewal.cancel();
        lock.metrics.released(service.clock.getAsLong() - acquiredAtNanos);
        LockService.Turn next = gate.claimNext();
        boolean released;
        try {
            released = service.store(describe(), () -> next == null ? service.lockStore.unlock(lock.storeKey, owner)
                    : handOver(next));
        } catch (RuntimeException e) {
            // The store is unreachable: the lock goes away when its lease runs out.
            LOG.log(Level.WARNING, "Sluice: could not release lock '" + lock.key() + "'; it expires after its lease", e);
            released = lease.isHeld();
        } finally {
            if (next == null) {
                gate.leave();
            } else {
                next.contend(); // unless handOver granted it the lock; on any outcome, never left parked
            }
            service.leaveGate(lock.storeKey, gate);
        }
        if (!released || lease.isLost()) {
            lease.markLost();
            throw new LockLostException(lock.key(), "Lock '" + lock.key() + "' (fencing token " + fencingToken
                    + ") had lost its lease before it was released; another holder may have overlapped. "
                    + "The other holder's lock was left untouched");
        }
    }

    /**
     * Passes the lock to the next thread queued at the gate in one store call. If the store refuses (another
     * instance waits, or our lease had run out and somebody else holds it), the turn is left to {@link #exit},
     * which lets that thread contend instead.
     *
     * @return whether this holder still held the lock
     */
    private boolean handOver(LockService.Turn next) {
        long started = service.clock.getAsLong();
        LockStore.Handover handover = service.lockStore.handOver(lock.storeKey, owner, next.owner, next.leaseMillis);
        if (handover.attempt().acquired()) {
            next.grant(handover.attempt().fencingToken(), started);
        }
        return handover.released();
    }

    /** Sets the lease in the store and here at once; renewals from now on ask for the new lease. */
    private boolean extend(Duration newLease) {
        long millis = LockService.leaseMillis("lock", lock.key(), newLease);
        long started = service.clock.getAsLong();
        boolean ok;
        try {
            ok = lease.set(millis, m -> service.store(describe(),
                    () -> service.lockStore.extend(lock.storeKey, owner, m)));
        } catch (RuntimeException e) {
            throw new StoreUnavailableException("Could not extend lock '" + lock.key() + "': " + e.getMessage(), e);
        }
        if (ok) {
            renewal.leaseChanged(started);
        }
        return ok;
    }

    /** One reentrant acquisition; closing it more than once has no further effect. */
    private final class Handle implements LockHandle {
        private final AtomicBoolean closed = new AtomicBoolean();

        @Override
        public String key() {
            return lock.key();
        }

        @Override
        public long fencingToken() {
            return fencingToken;
        }

        @Override
        public boolean isHeld() {
            return !closed.get() && lease.isHeld();
        }

        @Override
        public boolean extend(Duration lease) {
            return !closed.get() && LockHold.this.extend(lease);
        }

        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) {
                exit();
            }
        }

        @Override
        public String toString() {
            return "LockHandle[" + lock.key() + ", token=" + fencingToken + ", held=" + isHeld() + "]";
        }
    }
}
