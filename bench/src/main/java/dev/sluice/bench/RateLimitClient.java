package dev.sluice.bench;

import java.time.Duration;

/**
 * One library's rate limiter as a benchmark drives it: one decision for one key, configured with one
 * limit per key, by default {@link BenchEnv#RATE_TOKENS} per {@link BenchEnv#RATE_PERIOD}. Implementations are thread-safe and
 * are written the way each library's documentation tells a user to write them.
 */
interface RateLimitClient extends AutoCloseable {

    /** Decides one request for {@code key}; {@code true} when admitted. */
    boolean tryAcquire(int key);

    @Override
    void close();

    /** The client for a library name as used in {@code @Param} values and the report, at the benchmark's rate. */
    static RateLimitClient open(String library, String redisUri, String[] keyNames) {
        return open(library, redisUri, keyNames, BenchEnv.RATE_TOKENS, BenchEnv.RATE_PERIOD);
    }

    /** The client for a library, limiting each key to {@code tokens} per {@code period} (burst: {@code tokens}). */
    static RateLimitClient open(String library, String redisUri, String[] keyNames, long tokens, Duration period) {
        return switch (library) {
            case Libraries.SLUICE -> new SluiceRateLimitClient(redisUri, keyNames, tokens, period);
            case Libraries.SLUICE_BUDGET -> new SluiceRateLimitClient(redisUri, keyNames, tokens, period,
                    BenchEnv.LOCAL_BUDGET, BenchEnv.BUDGET_BURST);
            case Libraries.BUCKET4J -> new Bucket4jRateLimitClient(redisUri, keyNames, tokens, period);
            case Libraries.REDISSON -> new RedissonRateLimitClient(redisUri, keyNames, tokens, period);
            case Libraries.RAW_EVALSHA -> new RawEvalshaClient(redisUri, keyNames, tokens, period);
            default -> throw new IllegalArgumentException("unknown library " + library);
        };
    }
}
