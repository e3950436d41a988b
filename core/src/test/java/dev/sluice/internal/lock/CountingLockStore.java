package dev.sluice.internal.lock;

import java.util.concurrent.atomic.AtomicInteger;

/** Passes every call to a real store and counts acquisition attempts (reentrancy must not make any). */
final class CountingLockStore implements LockStore {

    private final LockStore delegate;
    final AtomicInteger attempts = new AtomicInteger();

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
        return delegate.unlock(key, owner);
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
