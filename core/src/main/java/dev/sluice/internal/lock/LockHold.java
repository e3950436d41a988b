package dev.sluice.internal.lock;

import dev.sluice.internal.lease.Watchdog;
import dev.sluice.internal.lease.Lease;
import dev.sluice.LockHandle;
import dev.sluice.LockLostException;
import dev.sluice.StoreUnavailableException;
import dev.sluice.internal.tx.Transactions;

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
final class LockHold extends Hold {

    private final DefaultDistributedLock lock;
    private final DefaultDistributedLock.HoldKey holdKey;
    private final long fencingToken;
    private int depth;
    /** The transactions (their keys) whose completion the release waits for; guarded by this. */
    private final Set<Object> awaited = new HashSet<>();
    /** Set once, by whoever releases it in the store; guarded by this. */
    private boolean released;

    LockHold(DefaultDistributedLock lock, DefaultDistributedLock.HoldKey holdKey, String owner, Guard.Grant grant,
             Lease lease) {
        super(lock, grant, owner, lease);
        this.lock = lock;
        this.holdKey = holdKey;
        this.fencingToken = grant.fencingToken();
    }

    @Override
    boolean extendInStore(long leaseMillis) {
        return lock.store.extend(lock.storeKey, id, leaseMillis);
    }

    @Override
    boolean releaseInStore() {
        return lock.store.unlock(lock.storeKey, id);
    }

    @Override
    String unreachableWarning() {
        return "Sluice: could not release lock '" + lock.key() + "'; it expires after its lease";
    }

    @Override
    LockLostException lostAtRelease() {
        return new LockLostException(lock.key(), "Lock '" + lock.key() + "' (fencing token " + fencingToken
                + ") had lost its lease before it was released; another holder may have overlapped. "
                + "The other holder's lock was left untouched");
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
        Transactions transactions = lock.parts.transactions();
        Object transaction = lease.isHeld() ? transactions.current() : null;
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
        if (register && (transactions.onCompletion(new Completion(transaction)) || !lastAwaited(transaction))) {
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

    /** At the end of a transaction, on the thread that completed it. */
    private void completed(Object transaction) {
        if (lastAwaited(transaction)) {
            afterTransaction(this::release, () -> "Sluice: could not release lock '" + lock.key()
                    + "' after its transaction");
        }
    }

    /** Releases in the store, once, on the closing thread or on the thread that completed the transaction. */
    private void release() {
        lock.holds.remove(holdKey, this);
        giveBack();
    }

    /** Sets the lease in the store and here at once; renewals from now on ask for the new lease. */
    private boolean extend(Duration newLease) {
        long millis = Guard.leaseMillis("lock", lock.key(), newLease);
        long started = lock.clock.getAsLong();
        boolean ok;
        try {
            ok = lease.set(millis, m -> lock.parts.calls().call(describe(), () -> extendInStore(m)));
        } catch (RuntimeException e) {
            throw new StoreUnavailableException("Could not extend lock '" + lock.key() + "': " + e.getMessage(), e);
        }
        if (ok) {
            leaseChanged(started);
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
