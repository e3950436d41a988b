package dev.sluice.bench;

/**
 * One library's per-client concurrency limit as a benchmark drives it: decide one request of one client
 * without waiting (take a permit, or refuse at once), and when admitted give the permit back as the request
 * completes. Thread-safe.
 */
interface ConcurrencyLimitClient extends AutoCloseable {

    /** The client key every thread's requests share: one client, so every decision contends for its permits. */
    String KEY = "user-0";

    /** One request: {@code true} when it was admitted (and its permit already returned), {@code false} when refused. */
    boolean request();

    @Override
    void close();

    static ConcurrencyLimitClient open(String library, String redisUri, int permits) {
        return switch (library) {
            case Libraries.SLUICE -> new SluiceConcurrencyLimitClient(redisUri, permits);
            case Libraries.REDISSON -> new RedissonConcurrencyLimitClient(redisUri, permits);
            default -> throw new IllegalArgumentException("no concurrency-limit benchmark for " + library);
        };
    }
}
