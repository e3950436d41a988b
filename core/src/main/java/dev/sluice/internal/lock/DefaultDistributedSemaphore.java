package dev.sluice.internal.lock;

import dev.sluice.internal.lease.Watchdog;
import dev.sluice.internal.lease.Lease;
import dev.sluice.DistributedSemaphore;
import dev.sluice.LockLostException;
import dev.sluice.Permit;
import dev.sluice.PermitNotAcquiredException;
import dev.sluice.internal.metrics.GuardMetrics;
import dev.sluice.internal.tx.Transactions;

import java.lang.System.Logger.Level;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link DistributedSemaphore}: the threads of this JVM wait in the semaphore's {@link WaitQueue} in arrival
 * order, one of them at a time trying the store between parks on {@link ReleaseSignals} ({@link Guard#await}); a
 * holder returning its permit hands it to one of them in one store call when it can. Every held permit is renewed
 * by the watchdog. Thread-safe.
 */
final class DefaultDistributedSemaphore extends Guard<Permit> implements DistributedSemaphore {

    private static final System.Logger LOG = System.getLogger("dev.sluice.lock");

    private final String name;
    private final int permits;
    private final SemaphoreStore store;

    DefaultDistributedSemaphore(String name, String storeKey, int permits, GuardMetrics metrics, SemaphoreStore store,
                                LockParts parts) {
        super(false, "semaphore", name, "a permit of semaphore '" + name + "'", storeKey, metrics,
                PermitNotAcquiredException::new, parts);
        this.name = name;
        this.permits = permits;
        this.store = store;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int permits() {
        return permits;
    }

    @Override
    Optional<Permit> acquire(long started, long leaseMillis, long deadline, boolean throwOnTimeout) {
        String permitId = Owners.newToken();
        return await(new PermitClaim(permitId, leaseMillis), started, deadline, throwOnTimeout)
                .map(grant -> hold(permitId, leaseMillis, grant));
    }

    private Permit hold(String permitId, long leaseMillis, Grant grant) {
        Lease lease = new Lease(parts.clock(), grant.grantedAtNanos(), leaseMillis, m -> m, why -> {
            metrics.leaseLost();
            LOG.log(Level.WARNING, "Sluice: a permit of semaphore '" + name + "' lost its lease: " + why
                    + "; more than " + permits + " holders may have run at once");
        });
        HeldPermit held = new HeldPermit(permitId, grant, lease);
        held.startWatchdog();
        return held;
    }

    /**
     * One acquisition of a permit, under a permit id of its own. A hand-over whose reply was lost leaves nothing
     * behind: this claim's own attempt, under the same permit id, is granted again if the hand-over did run.
     */
    private final class PermitClaim implements Claim {
        private final String permitId;
        private final long leaseMillis;

        PermitClaim(String permitId, long leaseMillis) {
            this.permitId = permitId;
            this.leaseMillis = leaseMillis;
        }

        @Override
        public Attempt attempt() {
            return store.tryAcquire(storeKey, permitId, permits, leaseMillis);
        }

        @Override
        public void undo() {
            store.release(storeKey, permitId);
        }

        @Override
        public LockStore.Handover takeOver(String holder) {
            return store.handOver(storeKey, holder, permitId, permits, leaseMillis);
        }
    }

    /** One held permit, renewed by the watchdog until returned: at close, or when the closer's transaction completes. */
    private final class HeldPermit extends Hold implements Permit {
        private final AtomicBoolean closed = new AtomicBoolean();

        HeldPermit(String permitId, Grant grant, Lease lease) {
            super(DefaultDistributedSemaphore.this, grant, permitId, lease);
        }

        @Override
        boolean extendInStore(long leaseMillis) {
            return store.extend(storeKey, id, leaseMillis);
        }

        @Override
        boolean releaseInStore() {
            return store.release(storeKey, id);
        }

        @Override
        String unreachableWarning() {
            return "Sluice: could not return a permit of semaphore '" + name + "'; it is reclaimed after its lease";
        }

        @Override
        LockLostException lostAtRelease() {
            return new LockLostException(name, "A permit of semaphore '" + name + "' had expired before it "
                    + "was returned; more than " + permits + " holders may have run at once");
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public boolean isHeld() {
            return !closed.get() && lease.isHeld();
        }

        /**
         * Returns the permit, or has the transaction running on this thread return it when it completes (a lease
         * known lost is returned at once, so that the holder learns of it while its transaction can roll back).
         */
        @Override
        public void close() {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            Transactions transactions = parts.transactions();
            Object transaction = lease.isHeld() ? transactions.current() : null;
            if (transaction != null && transactions.onCompletion(new Transactions.Completion() {
                @Override
                public boolean stillHeld() {
                    return lease.stillHeldAtCommit();
                }

                @Override
                public void completed(boolean committed) {
                    afterTransaction(HeldPermit.this::giveBack, () -> "Sluice: could not return a permit of "
                            + "semaphore '" + name + "' after its transaction");
                }
            })) {
                return;
            }
            giveBack();
        }

        @Override
        public String toString() {
            return "Permit[" + name + ", held=" + isHeld() + "]";
        }
    }
}
