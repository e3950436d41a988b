package dev.sluice.internal.lock;

import dev.sluice.DistributedLock;
import dev.sluice.LockHandle;
import dev.sluice.LockNotAcquiredException;
import dev.sluice.internal.metrics.GuardMetrics;

import java.time.Duration;
import java.util.Optional;

/**
 * A {@link DistributedLock} of a {@link LockService}: reentrancy from the service's hold table, then the
 * local gate, then attempts on the store, parking on {@link ReleaseSignals} between them. Thread-safe.
 */
final class DefaultDistributedLock implements DistributedLock {

    private final LockService service;
    private final String key;
    private final String storeKey;
    private final GuardMetrics metrics;

    DefaultDistributedLock(LockService service, String key, String storeKey, GuardMetrics metrics) {
        this.service = service;
        this.key = key;
        this.storeKey = storeKey;
        this.metrics = metrics;
    }

    @Override
    public String key() {
        return key;
    }

    @Override
    public LockHandle acquire(Duration lease, Duration maxWait) {
        return acquire(lease, maxWait, true).orElseThrow();
    }

    @Override
    public Optional<LockHandle> tryAcquire(Duration lease) {
        return acquire(lease, Duration.ZERO, false);
    }

    private Optional<LockHandle> acquire(Duration lease, Duration maxWait, boolean throwOnTimeout) {
        long started = System.nanoTime();
        long leaseMillis = LockService.leaseMillis("lock", key, lease);
        long deadline = started + LockService.maxWaitNanos("lock", key, maxWait);
        LockService.HoldKey holdKey = new LockService.HoldKey(Thread.currentThread(), storeKey);
        LockHold held = service.holds.get(holdKey);
        if (held != null) {
            return Optional.of(held.reenter());
        }
        String owner = Owners.newToken();
        LockService.Gate gate = service.enterGate(storeKey);
        boolean gateTaken = false;
        boolean acquired = false;
        try {
            LockService.Turn turn = gate.enter(owner, leaseMillis);
            if (turn != null) {
                turn.await(deadline);
                if (turn.state == LockService.Turn.WAITING) {
                    boolean interrupted = Thread.currentThread().isInterrupted();
                    if (gate.cancel(turn)) {
                        if (interrupted) {
                            throw new LockNotAcquiredException(key, waited(started), new InterruptedException());
                        }
                        return timedOut(started, throwOnTimeout);
                    }
                    turn.await(deadline); // claimed meanwhile: its outcome comes within one store call
                }
                gateTaken = true;
                if (turn.state == LockService.Turn.GRANTED) {
                    acquired = true;
                    return Optional.of(hold(holdKey, gate, owner, turn.fencingToken, leaseMillis, turn.grantedAtNanos,
                            started));
                }
            } else {
                gateTaken = true;
            }
            Optional<LockHandle> handle = contend(holdKey, gate, owner, leaseMillis, started, deadline, throwOnTimeout);
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

    /** Attempts on the store while this thread holds the local gate, parking between them. */
    private Optional<LockHandle> contend(LockService.HoldKey holdKey, LockService.Gate gate, String owner,
                                         long leaseMillis, long started, long deadline, boolean throwOnTimeout) {
        ReleaseSignals.Waiter waiter = null;
        try {
            while (true) {
                long releasesSeen = service.signals.releases(storeKey);
                long attemptStarted = System.nanoTime();
                Attempt attempt = tryStore(owner, leaseMillis, started);
                if (attempt.acquired()) {
                    return Optional.of(hold(holdKey, gate, owner, attempt.fencingToken(), leaseMillis, attemptStarted,
                            started));
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return timedOut(started, throwOnTimeout);
                }
                waiter = service.signals.park(waiter, storeKey, releasesSeen,
                        Math.min(left, service.pollNanos(attempt.retryHintMillis())));
                if (Thread.currentThread().isInterrupted()) {
                    throw new LockNotAcquiredException(key, waited(started), new InterruptedException());
                }
            }
        } finally {
            if (waiter != null) {
                waiter.close();
            }
        }
    }

    /**
     * Records a granted acquisition: the hold, its lease and its watchdog.
     *
     * @param grantedAtNanos when the store call that granted the lock started (the lease counts from there)
     */
    private LockHandle hold(LockService.HoldKey holdKey, LockService.Gate gate, String owner, long fencingToken,
                            long leaseMillis, long grantedAtNanos, long started) {
        long acquiredAt = System.nanoTime();
        metrics.acquired(acquiredAt - started);
        LockHold hold = new LockHold(service, this, holdKey, owner, fencingToken, leaseMillis,
                new Lease(grantedAtNanos, service.lockStore.validityMillis(leaseMillis), metrics::leaseLost),
                gate, acquiredAt);
        service.holds.put(holdKey, hold);
        hold.startWatchdog(grantedAtNanos);
        return hold.enter();
    }

    private Attempt tryStore(String owner, long leaseMillis, long started) {
        Attempt attempt;
        try {
            attempt = service.lockStore.tryLock(storeKey, owner, leaseMillis);
        } catch (RuntimeException e) {
            metrics.redisError();
            service.metrics.redis().failed(e);
            throw failClosed(owner, started, e);
        }
        service.metrics.redis().answered();
        return attempt;
    }

    /**
     * The attempt may have reached the store although its reply did not reach us (a timeout), so delete
     * our lock if it is there; the compare-and-delete never touches another owner's lock.
     */
    private LockNotAcquiredException failClosed(String owner, long started, RuntimeException cause) {
        try {
            service.lockStore.unlock(storeKey, owner);
        } catch (RuntimeException ignored) {
            // Unreachable as well: the lease removes it.
        }
        return new LockNotAcquiredException(key, waited(started), cause);
    }

    private Optional<LockHandle> timedOut(long started, boolean throwOnTimeout) {
        metrics.timedOut();
        if (throwOnTimeout) {
            throw new LockNotAcquiredException(key, waited(started), null);
        }
        return Optional.empty();
    }

    static Duration waited(long startedNanos) {
        return Duration.ofNanos(System.nanoTime() - startedNanos);
    }

    String storeKey() {
        return storeKey;
    }

    GuardMetrics metrics() {
        return metrics;
    }
}
