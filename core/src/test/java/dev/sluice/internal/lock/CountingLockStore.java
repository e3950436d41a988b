package dev.sluice.internal.lock;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/** Passes every call to a real store and counts them (reentrancy must not make any attempt). */
final class CountingLockStore implements LockStore {

    private final LockStore delegate;
    final AtomicInteger attempts = new AtomicInteger();
    final AtomicInteger unlocks = new AtomicInteger();
    final AtomicInteger handOvers = new AtomicInteger();
    final AtomicReference<Handover> lastHandover = new AtomicReference<>();

    CountingLockStore(LockStore delegate) {
        this.delegate = delegate;
    }

    @Override
    public Attempt tryLock(String key, String owner, long leaseMillis) {
        attempts.incrementAndGet();
        return delegate.tryLock(key, owner, leaseMillis);
    }

    @Override
    public boolean unlock(String key, String owner) {
        unlocks.incrementAndGet();
        return delegate.unlock(key, owner);
    }

    @Override
    public Handover handOver(String key, String holder, String next, long leaseMillis) {
        handOvers.incrementAndGet();
        Handover handover = delegate.handOver(key, holder, next, leaseMillis);
        lastHandover.set(handover);
        return handover;
    }

    @Override
    public boolean extend(String key, String owner, long leaseMillis) {
        return delegate.extend(key, owner, leaseMillis);
    }

    @Override
    public long validityMillis(long leaseMillis) {
        return delegate.validityMillis(leaseMillis);
    }
}
