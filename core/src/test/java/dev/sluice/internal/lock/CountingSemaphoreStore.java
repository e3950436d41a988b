package dev.sluice.internal.lock;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/** Passes every call to a real semaphore store and counts them. */
final class CountingSemaphoreStore implements SemaphoreStore {

    private final SemaphoreStore delegate;
    final AtomicInteger attempts = new AtomicInteger();
    final AtomicInteger releases = new AtomicInteger();
    final AtomicInteger handOvers = new AtomicInteger();
    final AtomicReference<LockStore.Handover> lastHandover = new AtomicReference<>();

    CountingSemaphoreStore(SemaphoreStore delegate) {
        this.delegate = delegate;
    }

    @Override
    public Attempt tryAcquire(String key, String permitId, int permits, long leaseMillis) {
        attempts.incrementAndGet();
        return delegate.tryAcquire(key, permitId, permits, leaseMillis);
    }

    @Override
    public boolean release(String key, String permitId) {
        releases.incrementAndGet();
        return delegate.release(key, permitId);
    }

    @Override
    public LockStore.Handover handOver(String key, String holder, String next, int permits, long leaseMillis) {
        handOvers.incrementAndGet();
        LockStore.Handover handover = delegate.handOver(key, holder, next, permits, leaseMillis);
        lastHandover.set(handover);
        return handover;
    }

    @Override
    public boolean extend(String key, String permitId, long leaseMillis) {
        return delegate.extend(key, permitId, leaseMillis);
    }
}
