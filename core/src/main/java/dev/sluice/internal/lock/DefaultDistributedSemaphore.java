package dev.sluice.internal.lock;

import dev.sluice.DistributedSemaphore;
import dev.sluice.LockLostException;
import dev.sluice.Permit;
import dev.sluice.PermitNotAcquiredException;
import dev.sluice.SluiceException;
import dev.sluice.internal.metrics.GuardMetrics;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link DistributedSemaphore} of a {@link LockService}: attempts on the store, parking on
 * {@link ReleaseSignals} between them; every held permit is renewed by the watchdog. Thread-safe.
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
        Acquisition acquisition = new Acquisition(Owners.newToken(), leaseMillis, started);
        return new Contention<>(this, acquisition, started).run(deadline, throwOnTimeout);
    }

    /** One acquisition of a permit, under a permit id of its own. */
    private final class Acquisition implements Contention.Contender<Permit> {
        private final String permitId;
        private final long leaseMillis;
        private final long started;

        Acquisition(String permitId, long leaseMillis, long started) {
            this.permitId = permitId;
            this.leaseMillis = leaseMillis;
            this.started = started;
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
            long acquiredAt = service.clock.getAsLong();
            metrics.acquired(acquiredAt - started);
            Lease lease = new Lease(service.clock, attemptStartedNanos, leaseMillis, m -> m, metrics::leaseLost);
            return new HeldPermit(permitId, lease, attemptStartedNanos, acquiredAt);
        }

    }

    /** One held permit, renewed by the watchdog until closed. */
    private final class HeldPermit implements Permit, Watchdog.Renewable {
        private final String permitId;
        private final Lease lease;
        private final Watchdog.Renewal renewal;
        private final long acquiredAtNanos;
        private final AtomicBoolean closed = new AtomicBoolean();

        HeldPermit(String permitId, Lease lease, long grantedAtNanos, long acquiredAtNanos) {
            this.permitId = permitId;
            this.lease = lease;
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

        @Override
        public void close() {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            renewal.cancel();
            metrics.released(service.clock.getAsLong() - acquiredAtNanos);
            boolean released;
            try {
                released = service.store(describe(), () -> service.semaphoreStore.release(storeKey, permitId));
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Sluice: could not return a permit of semaphore '" + name
                        + "'; it is reclaimed after its lease", e);
                released = lease.isHeld();
            }
            if (!released || lease.isLost()) {
                lease.markLost();
                throw new LockLostException(name, "A permit of semaphore '" + name + "' had expired before it "
                        + "was returned; more than " + permits + " holders may have run at once");
            }
        }

        @Override
        public String toString() {
            return "Permit[" + name + ", held=" + isHeld() + "]";
        }
    }
}
