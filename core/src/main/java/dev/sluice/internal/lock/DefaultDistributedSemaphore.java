package dev.sluice.internal.lock;

import dev.sluice.DistributedSemaphore;
import dev.sluice.LockLostException;
import dev.sluice.Permit;
import dev.sluice.PermitNotAcquiredException;
import dev.sluice.SluiceException;
import dev.sluice.internal.metrics.GuardMetrics;
import dev.sluice.internal.tx.Transactions;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link DistributedSemaphore} of a {@link LockService}: the threads of this JVM wait at the semaphore's
 * {@link PermitGate} in arrival order, one of them at a time trying the store between parks on
 * {@link ReleaseSignals}; a holder returning its permit hands it to one of them in one store call when it can.
 * Every held permit is renewed by the watchdog. Thread-safe.
 */
final class DefaultDistributedSemaphore extends Guard<Permit> implements DistributedSemaphore {

    private static final System.Logger LOG = System.getLogger("dev.sluice.lock");

    private final String name;
    private final int permits;

    DefaultDistributedSemaphore(LockService service, String name, String storeKey, int permits, GuardMetrics metrics) {
        super(service, "semaphore", name, "a permit of semaphore '" + name + "'", storeKey, metrics,
                PermitNotAcquiredException::new);
        this.name = name;
        this.permits = permits;
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
        PermitGate gate = service.enterPermitGate(storeKey);
        PermitGate.Turn turn = new PermitGate.Turn(Thread.currentThread(), Owners.newToken(), permits, leaseMillis);
        Acquisition acquisition = new Acquisition(turn.permitId, leaseMillis, started, gate);
        Contention<Permit> contention = new Contention<>(this, acquisition, started);
        Optional<Permit> permit = Optional.empty();
        try {
            permit = waitAtGate(gate, turn, acquisition, contention, deadline, throwOnTimeout);
            return permit;
        } finally {
            gate.depart(turn);
            if (permit.isEmpty()) {
                service.leavePermitGate(storeKey, gate);
            }
        }
    }

    /**
     * Tries the store at once when nobody of this JVM waits; otherwise, and after a refusal, waits at the gate:
     * queued until handed a permit or sent to try the store, or as the contender, parked between attempts until
     * a return is signalled, its poll comes or a holder of this JVM hands it the permit.
     */
    private Optional<Permit> waitAtGate(PermitGate gate, PermitGate.Turn turn, Acquisition acquisition,
                                        Contention<Permit> contention, long deadline, boolean throwOnTimeout) {
        ReleaseSignals.Waiter waiter = null;
        try {
            Step step = gate.arrive(turn) ? Step.ATTEMPT : Step.AWAIT;
            long pollNanos = 0;
            while (true) {
                if (step == Step.AWAIT) {
                    turn.await(deadline, service.clock);
                    if (turn.state == PermitGate.Turn.WAITING) {
                        boolean interrupted = Thread.currentThread().isInterrupted();
                        if (gate.cancel(turn)) {
                            if (interrupted) {
                                throw contention.interrupted();
                            }
                            return contention.timedOut(throwOnTimeout);
                        }
                        turn.await(deadline, service.clock); // claimed or made the contender meanwhile
                    }
                    if (turn.state == PermitGate.Turn.GRANTED) {
                        return Optional.of(acquisition.hold(turn.grantedAtNanos));
                    }
                    if (turn.state == PermitGate.Turn.CONTEND) {
                        turn.state = PermitGate.Turn.ATTEMPTING; // a permit was just returned: try for it
                        step = Step.ATTEMPT;
                    } else {
                        step = Step.PARK; // IDLE: made the contender
                        pollNanos = service.pollNanos(Long.MAX_VALUE);
                    }
                }
                if (step == Step.PARK) {
                    waiter = service.signals.park(waiter, storeKey, turn.releasesSeen,
                            Math.min(deadline - service.clock.getAsLong(), pollNanos),
                            () -> turn.state != PermitGate.Turn.IDLE);
                    if (!turn.resume()) {
                        step = Step.AWAIT; // a holder of this JVM claimed it: its outcome follows
                        continue;
                    }
                    if (Thread.currentThread().isInterrupted()) {
                        throw contention.interrupted();
                    }
                }
                turn.releasesSeen = service.signals.releases(storeKey);
                long attemptStarted = service.clock.getAsLong();
                Attempt attempt = contention.once();
                if (attempt.acquired()) {
                    return Optional.of(acquisition.hold(attemptStarted));
                }
                if (deadline - service.clock.getAsLong() <= 0) {
                    return contention.timedOut(throwOnTimeout);
                }
                if (gate.refused(turn)) {
                    step = Step.PARK;
                    pollNanos = service.pollNanos(attempt.retryHintMillis());
                } else {
                    step = Step.AWAIT; // queued again behind the contender of this JVM: no signals until promoted
                    if (waiter != null) {
                        waiter.close();
                        waiter = null;
                    }
                }
            }
        } finally {
            if (waiter != null) {
                waiter.close();
            }
        }
    }

    /** What a waiting thread does next. */
    private enum Step { ATTEMPT, PARK, AWAIT }

    /** One acquisition of a permit, under a permit id of its own. */
    private final class Acquisition implements Contention.Contender<Permit> {
        private final String permitId;
        private final long leaseMillis;
        private final long started;
        private final PermitGate gate;

        Acquisition(String permitId, long leaseMillis, long started, PermitGate gate) {
            this.permitId = permitId;
            this.leaseMillis = leaseMillis;
            this.started = started;
            this.gate = gate;
        }

        @Override
        public Attempt attempt() {
            return service.semaphoreStore.tryAcquire(storeKey, permitId, permits, leaseMillis);
        }

        @Override
        public void undo() {
            service.semaphoreStore.release(storeKey, permitId);
        }

        @Override
        public Permit granted(Attempt attempt, long attemptStartedNanos) {
            return hold(attemptStartedNanos);
        }

        /** @param grantedAtNanos when the store call that granted the permit started (the lease counts from there) */
        Permit hold(long grantedAtNanos) {
            long acquiredAt = service.clock.getAsLong();
            metrics.acquired(acquiredAt - started);
            Lease lease = new Lease(service.clock, grantedAtNanos, leaseMillis, m -> m, why -> {
                metrics.leaseLost();
                LOG.log(Level.WARNING, "Sluice: a permit of semaphore '" + name + "' lost its lease: " + why
                        + "; more than " + permits + " holders may have run at once");
            });
            return new HeldPermit(permitId, lease, gate, grantedAtNanos, acquiredAt);
        }
    }

    /** One held permit, renewed by the watchdog until returned: at close, or when the closer's transaction completes. */
    private final class HeldPermit implements Permit, Watchdog.Renewable {
        private final String permitId;
        private final Lease lease;
        private final PermitGate gate;
        private final Watchdog.Renewal renewal;
        private final long acquiredAtNanos;
        private final AtomicBoolean closed = new AtomicBoolean();

        HeldPermit(String permitId, Lease lease, PermitGate gate, long grantedAtNanos, long acquiredAtNanos) {
            this.permitId = permitId;
            this.lease = lease;
            this.gate = gate;
            this.acquiredAtNanos = acquiredAtNanos;
            this.renewal = service.watchdog.watch(lease, grantedAtNanos, this);
        }

        @Override
        public boolean renew(long leaseMillis) {
            boolean renewed = service.semaphoreStore.extend(storeKey, permitId, leaseMillis);
            if (renewed) {
                metrics.renewed();
            }
            return renewed;
        }

        @Override
        public String describe() {
            return DefaultDistributedSemaphore.this.describe();
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
            Object transaction = lease.isHeld() ? service.transactions.current() : null;
            if (transaction != null && service.transactions.onCompletion(new Transactions.Completion() {
                @Override
                public boolean stillHeld() {
                    return lease.stillHeldAtCommit();
                }

                @Override
                public void completed(boolean committed) {
                    returnAfterTransaction();
                }
            })) {
                return;
            }
            returnPermit();
        }

        /** At the end of a transaction, on the thread that completed it: nobody to throw to, so a loss is logged. */
        private void returnAfterTransaction() {
            try {
                returnPermit();
            } catch (LockLostException e) {
                // Warned about once, by the lease; the transaction's own thread has moved on.
                LOG.log(Level.DEBUG, "Sluice: " + e.getMessage() + " (found when its transaction completed)");
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Sluice: could not return a permit of semaphore '" + name
                        + "' after its transaction", e);
            }
        }

        /** Returns the permit in the store (or hands it to a thread of this JVM that waits), once. */
        private void returnPermit() {
            if (!lease.isHeld()) {
                lease.reportUnconfirmed(Lease.UNCONFIRMED);
            }
            renewal.cancel();
            metrics.released(service.clock.getAsLong() - acquiredAtNanos);
            PermitGate.Turn next = gate.claimNext();
            boolean released;
            RuntimeException unreachable = null;
            try {
                released = service.store(describe(), () -> next == null
                        ? service.semaphoreStore.release(storeKey, permitId) : handOver(next));
            } catch (RuntimeException e) {
                released = lease.isHeld();
                unreachable = e;
                if (released) {
                    LOG.log(Level.WARNING, "Sluice: could not return a permit of semaphore '" + name
                            + "'; it is reclaimed after its lease", e);
                }
            } finally {
                if (next != null) {
                    next.contend(); // unless handOver granted it the permit; on any outcome, never left parked
                }
                service.leavePermitGate(storeKey, gate);
            }
            if (!released || lease.isLost()) {
                lease.markLost(Lease.lostAtRelease(unreachable));
                throw new LockLostException(name, "A permit of semaphore '" + name + "' had expired before it "
                        + "was returned; more than " + permits + " holders may have run at once");
            }
        }

        /**
         * Passes the permit to a waiting thread of this JVM in one store call. If the store refuses (another
         * instance waits, or this permit had expired), the turn is left to {@link #returnPermit}, which lets that thread
         * try the store instead. A lost reply leaves nothing behind: the next thread's own attempt, under the same
         * permit id, is granted again if the hand-over did run.
         *
         * @return whether this holder still held its permit
         */
        private boolean handOver(PermitGate.Turn next) {
            long started = service.clock.getAsLong();
            LockStore.Handover handover = service.semaphoreStore.handOver(storeKey, permitId, next.permitId,
                    next.permits, next.leaseMillis);
            if (handover.attempt().acquired()) {
                next.grant(started);
            }
            return handover.released();
        }

        @Override
        public String toString() {
            return "Permit[" + name + ", held=" + isHeld() + "]";
        }
    }
}
