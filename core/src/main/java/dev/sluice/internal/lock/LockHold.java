package dev.sluice.internal.lock;

import dev.sluice.LockHandle;
import dev.sluice.LockLostException;
import dev.sluice.SluiceException;
import dev.sluice.StoreUnavailableException;
import dev.sluice.internal.tx.Transactions;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One acquisition of a lock by one thread, shared by the handles of its reentrant acquisitions: the owner
 * token, the fencing token, the lease as the store last confirmed it (its length is the last one set, by the
 * acquisition or by {@code extend}), and the reentrancy depth. The outermost handle's close releases it in the
 * store, or, when a JTA transaction runs on the closing thread, that transaction's completion does: until then
 * the hold stays in the service's table (the thread reenters it), renewed, and counted as held in the metrics.
 * Thread-safe.
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
    /** The transactions (their keys) whose completion the release waits for; guarded by this. */
    private final Set<Object> awaited = new HashSet<>();
    /** Set once, by whoever releases it in the store; guarded by this. */
    private boolean released;

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

    /**
     * A new handle for a (re)entry by the holding thread; refused when the lease is known lost.
     *
     * @return null when the hold is being released (its transaction just completed): acquire anew
     */
    synchronized LockHandle reenter() {
        if (released) {
            return null;
        }
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
        // Asked outside the monitor: a manager completing the transaction on another thread (a timeout) calls
        // back into this hold under locks of its own.
        Object transaction = lease.isHeld() ? service.transactions.current() : null;
        boolean register = false;
        synchronized (this) {
            if (--depth > 0) {
                return;
            }
            if (transaction != null) {
                register = awaited.add(transaction);
                if (!register) {
                    return; // registered at an earlier exit in this transaction
                }
            } else if (!awaited.isEmpty() && lease.isHeld()) {
                return; // a transaction of an earlier exit, suspended now (REQUIRES_NEW), still runs
            } else {
                released = true;
            }
        }
        if (register && (service.transactions.onCompletion(new Completion(transaction)) || !lastAwaited(transaction))) {
            return;
        }
        // No transaction, or it refused to wait (completing already), or the lease is known lost: the holder
        // learns of a loss now, while its transaction can still roll back.
        release();
    }

    /**
     * A transaction the release waited for is over (or refused to wait): true, and the caller releases, when it
     * was the last one and nobody reentered meanwhile.
     */
    private synchronized boolean lastAwaited(Object transaction) {
        if (!awaited.remove(transaction) || depth > 0 || !awaited.isEmpty() || released) {
            return false;
        }
        released = true;
        return true;
    }

    /** At the end of a transaction, on the thread that completed it: nobody to throw to, so a loss is logged. */
    private void completed(Object transaction) {
        if (!lastAwaited(transaction)) {
            return;
        }
        try {
            release();
        } catch (LockLostException e) {
            // Warned about once, by the lease; the transaction's own thread has moved on.
            LOG.log(Level.DEBUG, "Sluice: " + e.getMessage() + " (found when its transaction completed)");
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Sluice: could not release lock '" + lock.key() + "' after its transaction", e);
        }
    }

    /** Releases in the store, once, on the closing thread or on the thread that completed the transaction. */
    private void release() {
        if (!lease.isHeld()) {
            lease.reportUnconfirmed(Lease.UNCONFIRMED);
        }
        service.holds.remove(holdKey, this);
        renewal.cancel();
        lock.metrics.released(service.clock.getAsLong() - acquiredAtNanos);
        LockService.Turn next = gate.claimNext();
        boolean unlocked;
        RuntimeException unreachable = null;
        try {
            unlocked = service.store(describe(), () -> next == null ? service.lockStore.unlock(lock.storeKey, owner)
                    : handOver(next));
        } catch (RuntimeException e) {
            // The store is unreachable: the lock goes away when its lease runs out.
            unlocked = lease.isHeld();
            unreachable = e;
            if (unlocked) {
                LOG.log(Level.WARNING, "Sluice: could not release lock '" + lock.key() + "'; it expires after its "
                        + "lease", e);
            }
        } finally {
            if (next == null) {
                gate.leave();
            } else {
                next.contend(); // unless handOver granted it the lock; on any outcome, never left parked
            }
            service.leaveGate(lock.storeKey, gate);
        }
        if (!unlocked || lease.isLost()) {
            lease.markLost(Lease.lostAtRelease(unreachable));
            throw new LockLostException(lock.key(), "Lock '" + lock.key() + "' (fencing token " + fencingToken
                    + ") had lost its lease before it was released; another holder may have overlapped. "
                    + "The other holder's lock was left untouched");
        }
    }

    /**
     * Passes the lock to the next thread queued at the gate in one store call. If the store refuses (another
     * instance waits, or our lease had run out and somebody else holds it), the turn is left to {@link #release},
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

    /** What the hold does when a transaction it waits for completes. */
    private final class Completion implements Transactions.Completion {
        private final Object transaction;

        Completion(Object transaction) {
            this.transaction = transaction;
        }

        @Override
        public boolean stillHeld() {
            return lease.stillHeldAtCommit();
        }

        @Override
        public void completed(boolean committed) {
            LockHold.this.completed(transaction);
        }
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
