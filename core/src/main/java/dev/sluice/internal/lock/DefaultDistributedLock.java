package dev.sluice.internal.lock;

import dev.sluice.DistributedLock;
import dev.sluice.LockHandle;
import dev.sluice.LockNotAcquiredException;
import dev.sluice.SluiceException;
import dev.sluice.internal.metrics.GuardMetrics;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Optional;

/**
 * A {@link DistributedLock} of a {@link LockService}: reentrancy from the service's hold table, then the
 * local gate, then attempts on the store ({@link Contention}). Thread-safe.
 */
final class DefaultDistributedLock extends Guard<LockHandle> implements DistributedLock {

    private static final System.Logger LOG = System.getLogger("dev.sluice.lock");

    private final String key;

    DefaultDistributedLock(LockService service, String key, String storeKey, GuardMetrics metrics) {
        super(service, "lock", key, "lock '" + key + "'", storeKey, metrics, LockNotAcquiredException::new);
        this.key = key;
    }

    @Override
    public String key() {
        return key;
    }

    @Override
    Optional<LockHandle> acquire(long started, long leaseMillis, long deadline, boolean throwOnTimeout) {
        LockService.HoldKey holdKey = new LockService.HoldKey(Thread.currentThread(), storeKey);
        LockHold held = service.holds.get(holdKey);
        LockHandle reentered = held == null ? null : held.reenter();
        if (reentered != null) {
            return Optional.of(reentered);
        }
        String owner = Owners.newToken();
        LockService.Gate gate = service.enterGate(storeKey);
        Acquisition acquisition = new Acquisition(holdKey, gate, owner, leaseMillis, started);
        Contention<LockHandle> contention = new Contention<>(this, acquisition, started);
        boolean gateTaken = false;
        boolean acquired = false;
        try {
            LockService.Turn turn = gate.enter(owner, leaseMillis);
            if (turn != null) {
                turn.await(deadline, service.clock);
                if (turn.state == LockService.Turn.WAITING) {
                    boolean interrupted = Thread.currentThread().isInterrupted();
                    if (gate.cancel(turn)) {
                        if (interrupted) {
                            throw contention.interrupted();
                        }
                        return contention.timedOut(throwOnTimeout);
                    }
                    turn.await(deadline, service.clock); // claimed meanwhile: its outcome comes within one store call
                }
                gateTaken = true;
                if (turn.state == LockService.Turn.GRANTED) {
                    acquired = true;
                    return Optional.of(acquisition.hold(turn.fencingToken, turn.grantedAtNanos));
                }
            } else {
                gateTaken = true;
            }
            Optional<LockHandle> handle = contention.run(deadline, throwOnTimeout);
            acquired = handle.isPresent();
            return handle;
        } finally {
            if (!acquired) {
                if (gateTaken) {
                    gate.leave();
                }
                service.leaveGate(storeKey, gate);
            }
        }
    }

    /** One acquisition by one thread holding the local gate. */
    private final class Acquisition implements Contention.Contender<LockHandle> {
        private final LockService.HoldKey holdKey;
        private final LockService.Gate gate;
        private final String owner;
        private final long leaseMillis;
        private final long started;

        Acquisition(LockService.HoldKey holdKey, LockService.Gate gate, String owner, long leaseMillis, long started) {
            this.holdKey = holdKey;
            this.gate = gate;
            this.owner = owner;
            this.leaseMillis = leaseMillis;
            this.started = started;
        }

        @Override
        public Attempt attempt() {
            return service.lockStore.tryLock(storeKey, owner, leaseMillis);
        }

        /** The compare-and-delete never touches another owner's lock. */
        @Override
        public void undo() {
            service.lockStore.unlock(storeKey, owner);
        }

        @Override
        public LockHandle granted(Attempt attempt, long attemptStartedNanos) {
            return hold(attempt.fencingToken(), attemptStartedNanos);
        }

        /**
         * Records a granted acquisition: the hold, its lease and its watchdog.
         *
         * @param grantedAtNanos when the store call that granted the lock started (the lease counts from there)
         */
        LockHandle hold(long fencingToken, long grantedAtNanos) {
            long acquiredAt = service.clock.getAsLong();
            metrics.acquired(acquiredAt - started);
            Lease lease = new Lease(service.clock, grantedAtNanos, leaseMillis, service.lockStore::validityMillis,
                    why -> {
                        metrics.leaseLost();
                        LOG.log(Level.WARNING, "Sluice: lock '" + key + "' (fencing token " + fencingToken
                                + ") lost its lease: " + why + "; another holder may have overlapped with this one");
                    });
            LockHold hold = new LockHold(service, DefaultDistributedLock.this, holdKey, owner, fencingToken, lease,
                    gate, acquiredAt);
            service.holds.put(holdKey, hold);
            hold.startWatchdog(grantedAtNanos);
            return hold.enter();
        }

    }
}
