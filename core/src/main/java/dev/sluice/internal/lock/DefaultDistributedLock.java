package dev.sluice.internal.lock;

import dev.sluice.internal.lease.Lease;
import dev.sluice.DistributedLock;
import dev.sluice.LockHandle;
import dev.sluice.LockNotAcquiredException;
import dev.sluice.internal.metrics.GuardMetrics;

import java.lang.System.Logger.Level;
import java.util.Map;
import java.util.Optional;

/**
 * A {@link DistributedLock}: reentrancy from its service's table of holds, then the key's {@link WaitQueue} and
 * attempts on the store ({@link Guard#await}). Thread-safe.
 */
final class DefaultDistributedLock extends Guard<LockHandle> implements DistributedLock {

    private static final System.Logger LOG = System.getLogger("dev.sluice.lock");

    /** A thread's hold of one lock key, for reentrancy. */
    record HoldKey(Thread thread, String storeKey) {
    }

    private final String key;
    final LockStore store;
    final Map<HoldKey, LockHold> holds;

    /** @param holds the holds of every lock of the service, by thread and key */
    DefaultDistributedLock(String key, String storeKey, GuardMetrics metrics, LockStore store,
                           Map<HoldKey, LockHold> holds, LockParts parts) {
        super(true, "lock", key, "lock '" + key + "'", storeKey, metrics, LockNotAcquiredException::new, parts);
        this.key = key;
        this.store = store;
        this.holds = holds;
    }

    @Override
    public String key() {
        return key;
    }

    @Override
    Optional<LockHandle> acquire(long started, long leaseMillis, long deadline, boolean throwOnTimeout) {
        HoldKey holdKey = new HoldKey(Thread.currentThread(), storeKey);
        LockHold held = holds.get(holdKey);
        LockHandle reentered = held == null ? null : held.reenter();
        if (reentered != null) {
            return Optional.of(reentered);
        }
        String owner = Owners.newToken();
        return await(new LockClaim(owner, leaseMillis), started, deadline, throwOnTimeout)
                .map(grant -> hold(holdKey, owner, leaseMillis, grant));
    }

    /** Records a granted acquisition: the hold, its lease and its watchdog. */
    private LockHandle hold(HoldKey holdKey, String owner, long leaseMillis, Grant grant) {
        long fencingToken = grant.fencingToken();
        Lease lease = new Lease(parts.clock(), grant.grantedAtNanos(), leaseMillis, store::validityMillis, why -> {
            metrics.leaseLost();
            LOG.log(Level.WARNING, "Sluice: lock '" + key + "' (fencing token " + fencingToken
                    + ") lost its lease: " + why + "; another holder may have overlapped with this one");
        });
        LockHold hold = new LockHold(this, holdKey, owner, grant, lease);
        holds.put(holdKey, hold);
        hold.startWatchdog();
        return hold.enter();
    }

    /** One acquisition under its own owner token; the compare-and-delete of its undo never touches another's lock. */
    private final class LockClaim implements Claim {
        private final String owner;
        private final long leaseMillis;

        LockClaim(String owner, long leaseMillis) {
            this.owner = owner;
            this.leaseMillis = leaseMillis;
        }

        @Override
        public Attempt attempt() {
            return store.tryLock(storeKey, owner, leaseMillis);
        }

        @Override
        public void undo() {
            store.unlock(storeKey, owner);
        }

        @Override
        public LockStore.Handover takeOver(String holder) {
            return store.handOver(storeKey, holder, owner, leaseMillis);
        }
    }
}
