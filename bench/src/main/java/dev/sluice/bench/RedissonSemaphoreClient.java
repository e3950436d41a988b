package dev.sluice.bench;

import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;

import java.util.concurrent.TimeUnit;

/**
 * Redisson's {@code RPermitExpirableSemaphore}, the one whose permits expire when their holder dies (as
 * Sluice's do): {@code acquire(lease)} returns a permit id, {@code release(id)} gives it back.
 */
final class RedissonSemaphoreClient implements SemaphoreClient {

    private final RedissonClient redisson;
    private final RPermitExpirableSemaphore semaphore;

    RedissonSemaphoreClient(String redisUri, int permits) {
        redisson = Libraries.redisson(redisUri);
        semaphore = redisson.getPermitExpirableSemaphore("redisson:sem:bench");
        semaphore.trySetPermits(permits);
    }

    @Override
    public void acquireRelease() {
        try {
            String permit = semaphore.acquire(30, TimeUnit.SECONDS);
            semaphore.release(permit);
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
