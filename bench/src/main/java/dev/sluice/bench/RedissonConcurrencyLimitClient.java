package dev.sluice.bench;

import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;

import java.util.concurrent.TimeUnit;

/**
 * The same limit written with Redisson: one {@code RPermitExpirableSemaphore} per client key (its permits
 * expire when their holder dies, as Sluice's do), {@code tryAcquire(0, lease)} to decide without waiting,
 * {@code release(id)} when the request completes. The semaphore's permits are set before the clock starts
 * (an application would pay that on each new client: this favours Redisson).
 */
final class RedissonConcurrencyLimitClient implements ConcurrencyLimitClient {

    private static final long LEASE_SECONDS = 30;

    private final RedissonClient redisson;
    private final RPermitExpirableSemaphore semaphore;

    RedissonConcurrencyLimitClient(String redisUri, int permits) {
        redisson = Libraries.redisson(redisUri);
        semaphore = redisson.getPermitExpirableSemaphore("redisson:cc:{bench:" + KEY + "}");
        semaphore.trySetPermits(permits);
    }

    @Override
    public boolean request() {
        try {
            String permit = semaphore.tryAcquire(0, LEASE_SECONDS, TimeUnit.SECONDS);
            if (permit == null) {
                return false;
            }
            semaphore.release(permit);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        redisson.shutdown();
    }
}
