package dev.sluice.bench;

import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

/**
 * Redisson's {@code RLock} the way its documentation starts: {@code lock()} without a lease, so its
 * watchdog renews the lock while it is held (as Sluice's does), then {@code unlock()}.
 */
final class RedissonLockClient implements LockClient {

    private final RedissonClient redisson;

    RedissonLockClient(String redisUri) {
        redisson = Libraries.redisson(redisUri);
    }

    @Override
    public Held acquire(String key) {
        RLock lock = redisson.getLock("redisson:lock:" + key);
        lock.lock();
        return lock::unlock;
    }

    @Override
    public void close() {
        redisson.shutdown();
    }
}
