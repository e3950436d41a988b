package dev.sluice.bench;

import java.time.Duration;

/**
 * What every benchmark fork shares: where the private Redis is, and the one policy all three rate
 * limiters are configured with. The runner passes the Redis URI to each forked JVM as a system property.
 */
final class BenchEnv {

    /** System property naming the private {@code redis-server} of this run ({@code redis://127.0.0.1:<port>}). */
    static final String REDIS_URI = "sluice.bench.redis";

    /**
     * Every library gets a connection pool of this size: Sluice's default {@code sluice.redis.pool.max-total}.
     * Jedis' own default (8) would throttle Bucket4j at 32 threads, which would measure the pool, not the library.
     */
    static final int POOL_SIZE = 64;

    /**
     * The limit never reached: one million tokens per second with a burst of one million, far above what one
     * Redis on loopback can decide, so every decision is an admission and every library does the same work.
     */
    static final long RATE_TOKENS = 1_000_000;
    static final Duration RATE_PERIOD = Duration.ofSeconds(1);

    /**
     * The local budget of {@link Libraries#SLUICE_BUDGET}: 50 ms, so that a node holds at most 50,000 of the rate's
     * tokens. Decided locally, a hot key goes far faster than the rate: that library's bucket holds
     * {@link #BUDGET_BURST} tokens, so that it is never emptied either.
     */
    static final String LOCAL_BUDGET = "50ms";
    static final long BUDGET_BURST = 1_000_000_000_000L;

    /** The distinct-keys scenario spreads decisions uniformly over this many keys. */
    static final int DISTINCT_KEYS = 100_000;

    private BenchEnv() {
    }

    static String redisUri() {
        String uri = System.getProperty(REDIS_URI);
        if (uri == null || uri.isBlank()) {
            throw new IllegalStateException("-D" + REDIS_URI + "=redis://127.0.0.1:<port> is not set; "
                    + "run the benchmarks through bench/run.sh, which starts a private redis-server");
        }
        return uri;
    }

    /** The key names of the distinct-keys scenario, built once so that no run pays for string building. */
    static String[] keyNames(int count) {
        String[] names = new String[count];
        for (int i = 0; i < count; i++) {
            names[i] = "user-" + i;
        }
        return names;
    }
}
