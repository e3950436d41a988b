package dev.sluice.bench;

/**
 * One library's distributed semaphore as a benchmark drives it: take a permit (waiting as long as it takes),
 * return it. Thread-safe.
 */
interface SemaphoreClient extends AutoCloseable {

    void acquireRelease();

    @Override
    void close();

    static SemaphoreClient open(String library, String redisUri, int permits) {
        return switch (library) {
            case Libraries.SLUICE -> new SluiceSemaphoreClient(redisUri, permits);
            case Libraries.REDISSON -> new RedissonSemaphoreClient(redisUri, permits);
            default -> throw new IllegalArgumentException("no semaphore benchmark for " + library);
        };
    }
}
