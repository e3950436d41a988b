package dev.sluice.internal.lock;

import dev.sluice.internal.lease.PermitSet;

import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Semaphores in this JVM's memory with the semantics of {@code semaphore-acquire.lua}: permit ids with
 * expiry times on the store's clock, expired ones reclaimed at acquisition. Used when no Redis is
 * configured and as the reference in the contract tests.
 *
 * <p>Thread-safe: every operation is serialised on this store. A semaphore whose last permit is returned
 * or reclaimed is forgotten.
 */
public final class InProcessSemaphoreStore implements SemaphoreStore {

    private final Map<String, PermitSet> semaphores = new HashMap<>();
    private final LongSupplier microsClock;
    private final ReleaseSignals signals;

    /**
     * @param microsClock the store's clock in microseconds since the epoch
     * @param signals     woken on every release
     */
    public InProcessSemaphoreStore(LongSupplier microsClock, ReleaseSignals signals) {
        this.microsClock = microsClock;
        this.signals = signals;
    }

    /** A store on the JVM's wall clock. */
    public InProcessSemaphoreStore(ReleaseSignals signals) {
        this(InProcessLockStore::wallClockMicros, signals);
    }

    @Override
    public synchronized Attempt tryAcquire(String key, String permitId, int permits, long leaseMillis) {
        long now = microsClock.getAsLong();
        PermitSet held = semaphores.computeIfAbsent(key, k -> new PermitSet());
        if (held.admits(permitId, permits, now)) {
            held.grant(permitId, now + leaseMillis * 1000);
            return Attempt.granted(0);
        }
        return Attempt.refused(InProcessLockStore.ceilMillis(held.earliest() - now));
    }

    @Override
    public boolean release(String key, String permitId) {
        synchronized (this) {
            PermitSet held = semaphores.get(key);
            boolean live = held != null && held.remove(permitId, microsClock.getAsLong());
            if (held != null && held.isEmpty()) {
                semaphores.remove(key);
            }
            if (!live) {
                return false;
            }
        }
        signals.signal(key);
        return true;
    }

    /** Returns the permit and lets the next thread contend: this store cannot tell other instances' waiters apart. */
    @Override
    public LockStore.Handover handOver(String key, String holder, String next, int permits, long leaseMillis) {
        return SemaphoreStore.releaseAndRefuse(this, key, holder);
    }

    @Override
    public synchronized boolean extend(String key, String permitId, long leaseMillis) {
        long now = microsClock.getAsLong();
        PermitSet held = semaphores.get(key);
        return held != null && held.extend(permitId, now, now + leaseMillis * 1000);
    }

    @Override
    public synchronized void close() {
        semaphores.clear();
    }
}
