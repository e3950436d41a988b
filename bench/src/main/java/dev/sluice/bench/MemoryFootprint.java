package dev.sluice.bench;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Redis memory of one active limiter: every key a library keeps for one limited client, summed with
 * {@code MEMORY USAGE <key> SAMPLES 0} (exact, including the key and its overhead), after the client has
 * spent its whole allowance of {@code tokens} per minute. A GCRA bucket is one number whatever the rate; a
 * sliding log keeps an entry per permit in its window.
 */
final class MemoryFootprint {

    /** Limits per minute measured, each spent fully. */
    static final long[] RATES = {10, 100, 1_000, 10_000};

    /** One library at one rate: the keys it left and their total size. */
    record Row(String library, long tokensPerMinute, int keys, long bytes) {
    }

    private final PrivateRedis redis;

    MemoryFootprint(PrivateRedis redis) {
        this.redis = redis;
    }

    List<Row> measure(List<String> libraries) {
        List<Row> rows = new ArrayList<>();
        for (String library : libraries) {
            for (long rate : RATES) {
                rows.add(measure(library, rate));
            }
        }
        return rows;
    }

    private Row measure(String library, long tokens) {
        redis.flush();
        try (RateLimitClient client = RateLimitClient.open(library, redis.uri(), new String[] {"user-0"}, tokens,
                Duration.ofMinutes(1))) {
            long admitted = 0;
            for (long i = 0; i < tokens; i++) {
                admitted += client.tryAcquire(0) ? 1 : 0;
            }
            if (admitted != tokens) {
                throw new IllegalStateException(library + " admitted " + admitted + " of a fresh allowance of " + tokens);
            }
            return sizeOfEverything(library, tokens);
        }
    }

    private Row sizeOfEverything(String library, long tokens) {
        try (Jedis jedis = redis.connect()) {
            int keys = 0;
            long bytes = 0;
            String cursor = ScanParams.SCAN_POINTER_START;
            do {
                ScanResult<String> page = jedis.scan(cursor, new ScanParams().count(1000));
                for (String key : page.getResult()) {
                    Long size = jedis.memoryUsage(key, 0);
                    if (size != null) {
                        keys++;
                        bytes += size;
                    }
                }
                cursor = page.getCursor();
            } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
            return new Row(library, tokens, keys, bytes);
        }
    }
}
