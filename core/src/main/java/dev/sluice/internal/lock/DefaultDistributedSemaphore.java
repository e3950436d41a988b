package dev.sluice.internal.lock;

import dev.sluice.DistributedSemaphore;
import dev.sluice.LockLostException;
import dev.sluice.Permit;
import dev.sluice.PermitNotAcquiredException;
import dev.sluice.internal.metrics.GuardMetrics;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link DistributedSemaphore} of a {@link LockService}: attempts on the store, parking on
 * {@link ReleaseSignals} between them; every held permit is renewed by the watchdog. Thread-safe.
 */
final class DefaultDistributedSemaphore implements DistributedSemaphore {

    private static final System.Logger LOG = System.getLogger("dev.sluice.lock");

    private final LockService service;
    private final String name;
    private final String storeKey;
    private final int permits;
    private final GuardMetrics metrics;

    DefaultDistributedSemaphore(LockService service, String name, String storeKey, int permits, GuardMetrics metrics) {
        this.service = service;
        this.name = name;
        this.storeKey = storeKey;
        this.permits = permits;
        this.metrics = metrics;
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
    public Permit acquire(Duration lease, Duration maxWait) {
        return acquire(lease, maxWait, true).orElseThrow();
    }

    @Override
    public Optional<Permit> tryAcquire(Duration lease) {
        return acquire(lease, Duration.ZERO, false);
    }

    private Optional<Permit> acquire(Duration lease, Duration maxWait, boolean throwOnTimeout) {
        long started = System.nanoTime();
        long leaseMillis = LockService.leaseMillis("semaphore", name, lease);
        long deadline = started + LockService.maxWaitNanos("semaphore", name, maxWait);
        String permitId = Owners.newToken();
        ReleaseSignals.Waiter waiter = null;
        try {
            while (true) {
                long releasesSeen = service.signals.releases(storeKey);
                long attemptStarted = System.nanoTime();
                Attempt attempt;
                try {
                    attempt = service.semaphoreStore.tryAcquire(storeKey, permitId, permits, leaseMillis);
                } catch (RuntimeException e) {
                    metrics.redisError();
                    service.metrics.redis().failed(e);
                    throw failClosed(permitId, started, e);
                }
                service.metrics.redis().answered();
                if (attempt.acquired()) {
                    long acquiredAt = System.nanoTime();
                    metrics.acquired(acquiredAt - started);
                    return Optional.of(new HeldPermit(permitId, leaseMillis,
                            new Lease(attemptStarted, leaseMillis, metrics::leaseLost), attemptStarted, acquiredAt));
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    metrics.timedOut();
                    if (throwOnTimeout) {
                        throw new PermitNotAcquiredException(name, DefaultDistributedLock.waited(started), null);
                    }
                    return Optional.empty();
                }
                waiter = service.signals.park(waiter, storeKey, releasesSeen,
                        Math.min(left, service.pollNanos(attempt.retryHintMillis())));
                if (Thread.currentThread().isInterrupted()) {
                    throw new PermitNotAcquiredException(name, DefaultDistributedLock.waited(started),
                            new InterruptedException());
                }
            }
        } finally {
            if (waiter != null) {
                waiter.close();
            }
        }
    }

    /** The attempt may have been applied although its reply was lost; give the permit back if so. */
    private PermitNotAcquiredException failClosed(String permitId, long started, RuntimeException cause) {
        try {
            service.semaphoreStore.release(storeKey, permitId);
        } catch (RuntimeException ignored) {
            // Unreachable as well: the permit's lease reclaims it.
        }
        return new PermitNotAcquiredException(name, DefaultDistributedLock.waited(started), cause);
    }

    /** One held permit, renewed by the watchdog until closed. */
    private final class HeldPermit implements Permit, Watchdog.Renewable {
        private final String permitId;
        private final long leaseMillis;
        private final Lease lease;
        private final Watchdog.Renewal renewal;
        private final long acquiredAtNanos;
        private final AtomicBoolean closed = new AtomicBoolean();

        HeldPermit(String permitId, long leaseMillis, Lease lease, long grantedAtNanos, long acquiredAtNanos) {
            this.permitId = permitId;
            this.leaseMillis = leaseMillis;
            this.lease = lease;
            this.acquiredAtNanos = acquiredAtNanos;
            this.renewal = service.watchdog.watch(lease, grantedAtNanos, leaseMillis, this);
        }

        @Override
        public boolean renew() {
            boolean renewed = service.semaphoreStore.extend(storeKey, permitId, leaseMillis);
            if (renewed) {
                metrics.renewed();
            }
            return renewed;
        }

        @Override
        public String describe() {
            return "a permit of semaphore '" + name + "'";
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
            metrics.released(System.nanoTime() - acquiredAtNanos);
            boolean released;
            try {
                released = service.semaphoreStore.release(storeKey, permitId);
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
