package dev.sluice.bench;

import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.limit.RateLimitEngine;
import dev.sluice.internal.runtime.SluiceRuntime;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.params.SetParams;
import redis.clients.jedis.resps.ScanResult;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Redis memory of the libraries' rate-limit state, measured two ways.
 *
 * <ul>
 *   <li>One limiter: every key a library keeps for one limited client, summed with
 *       {@code MEMORY USAGE <key> SAMPLES 0} (exact: key name, value, object headers, allocator rounding),
 *       after the client has spent its whole allowance of {@code n} per minute. A GCRA bucket is one number
 *       whatever the rate; a sliding log keeps an entry per permit in its window.</li>
 *   <li>Many limiters: growth of Redis' allocated memory less client buffers and script caches
 *       ({@code MEMORY STATS}) over {@link #MANY} clients making one request each, divided by their number.
 *       This also counts what {@code MEMORY USAGE} leaves out: hash table buckets and the expiry entry of
 *       every key with a TTL.</li>
 * </ul>
 */
final class MemoryFootprint {

    /** Limits per minute measured for one limiter, each spent fully. */
    static final long[] RATES = {10, 100, 1_000, 10_000};

    /** Clients in the many-limiters measurement. */
    static final int MANY = 10_000;

    /**
     * One library at one rate.
     *
     * @param limiters how many limiters the bytes are for (1, or {@link #MANY})
     * @param keys     the Redis keys they left
     * @param bytes    total ({@code MEMORY USAGE} for one limiter, {@code MEMORY STATS} growth for many)
     */
    record Row(String library, long tokensPerMinute, int limiters, int keys, long bytes) {
        long bytesPerLimiter() {
            return bytes / limiters;
        }
    }

    /** Whole Redis key names (bytes) of the per-key-length measurement. */
    static final int[] KEY_LENGTHS = {14, 30, 44, 60, 100};

    /**
     * The rates of the per-key-length rows: {@code 10/1m}, whose interval is whole microseconds, and {@code 3/10s},
     * whose interval (3,333,333 1/3 µs) is not, so the bucket carries a remainder.
     */
    static final List<Map.Entry<Long, Duration>> KEY_LENGTH_RATES = List.of(Map.entry(10L, Duration.ofMinutes(1)),
            Map.entry(3L, Duration.ofSeconds(10)));

    /**
     * Sluice's bucket against Redis' floor for a key name of one length.
     *
     * @param rate        the limit, such as {@code 3/10s}
     * @param key         the bucket's Redis key, {@code keyBytes} long
     * @param sluiceBytes {@code MEMORY USAGE} of the bucket after one decision under {@code rate}
     * @param floorBytes  {@code MEMORY USAGE} of a plain {@code SET} of an integer to the same key name: the
     *                    least any string value can take under that name
     */
    record KeyLengthRow(int keyBytes, String rate, String key, long sluiceBytes, long floorBytes) {
        long aboveFloor() {
            return sluiceBytes - floorBytes;
        }
    }

    private final PrivateRedis redis;

    MemoryFootprint(PrivateRedis redis) {
        this.redis = redis;
    }

    List<Row> measure(List<String> libraries) {
        List<Row> rows = new ArrayList<>();
        for (String library : libraries) {
            for (long rate : RATES) {
                rows.add(one(library, rate));
            }
        }
        for (String library : libraries) {
            rows.add(many(library));
        }
        return rows;
    }

    /**
     * Sluice's bucket by key length: the key prefix ({@code sluice.key-prefix}, 1 to 32 characters) and the
     * client key (kept verbatim up to 64 characters) chosen so that the whole Redis key is each of
     * {@link #KEY_LENGTHS} long.
     */
    List<KeyLengthRow> byKeyLength() {
        List<KeyLengthRow> rows = new ArrayList<>();
        for (Map.Entry<Long, Duration> rate : KEY_LENGTH_RATES) {
            for (int length : KEY_LENGTHS) {
                rows.add(byKeyLength(length, rate.getKey(), rate.getValue()));
            }
        }
        return rows;
    }

    private KeyLengthRow byKeyLength(int length, long tokens, Duration period) {
        redis.flush();
        // <prefix>:rl:{bench:<client>}: 12 characters besides prefix and client key
        String prefix = length < 19 ? "s" : length <= 82 ? "sluice" : "sluice-" + "x".repeat(25);
        int clientLength = length - 12 - prefix.length();
        String client = clientLength < 6 ? "user-".substring(0, clientLength) : "user-" + "7".repeat(clientLength - 5);
        // a slow rate: one decision keeps the bucket for seconds (at the benchmark rate it would expire in 1 µs)
        Map<String, String> settings = new HashMap<>(SluiceRateLimitClient.settings(redis.uri(), tokens, period));
        settings.put(SluiceConfigLoader.KEY_PREFIX, prefix);
        SluiceConfig config = SluiceConfigLoader.load(ConfigSources.of(settings));
        try (SluiceRuntime runtime = SluiceRuntime.start(config); Jedis jedis = redis.connect()) {
            RateLimitEngine engine = runtime.rateLimits();
            if (!engine.decide(config.policy(SluiceRateLimitClient.POLICY).orElseThrow(), client, 1).allowed()) {
                throw new IllegalStateException("a first request was refused");
            }
            String key = engine.bucketKey(SluiceRateLimitClient.POLICY, client);
            if (key.length() != length || !jedis.exists(key)) {
                throw new IllegalStateException("expected a bucket " + length + " bytes long, found " + key);
            }
            long sluice = jedis.memoryUsage(key, 0);
            jedis.del(key);
            jedis.set(key, "1733000000000000", SetParams.setParams().px(3_600_000));
            return new KeyLengthRow(length, tokens + "/" + period.toString().substring(2).toLowerCase(Locale.ROOT),
                    key, sluice, jedis.memoryUsage(key, 0));
        }
    }

    private Row one(String library, long tokens) {
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
            int keys = 0;
            long bytes = 0;
            try (Jedis jedis = redis.connect()) {
                for (String key : keys(jedis)) {
                    keys++;
                    bytes += jedis.memoryUsage(key, 0);
                }
            }
            return new Row(library, tokens, 1, keys, bytes);
        }
    }

    /** {@code MANY} clients, one request each, under a limit of 10 per minute (their state outlives the run). */
    private Row many(String library) {
        redis.flush();
        String[] names = BenchEnv.keyNames(MANY);
        try (Jedis jedis = redis.connect()) {
            long before = datasetBytes(jedis);
            try (RateLimitClient client = RateLimitClient.open(library, redis.uri(), names, 10, Duration.ofMinutes(1))) {
                for (int i = 0; i < MANY; i++) {
                    if (!client.tryAcquire(i)) {
                        throw new IllegalStateException(library + " denied a first request");
                    }
                }
                return new Row(library, 10, MANY, keys(jedis).size(), datasetBytes(jedis) - before);
            }
        }
    }

    /**
     * What the keys themselves cost, from {@code MEMORY STATS}: everything allocated less what is not data
     * (client connection buffers, which differ by library, and the script caches).
     */
    private static long datasetBytes(Jedis jedis) {
        Map<String, Object> stats = jedis.memoryStats();
        long total = number(stats.get("total.allocated"));
        for (String notData : List.of("clients.normal", "clients.slaves", "lua.caches", "functions.caches",
                "replication.backlog", "aof.buffer", "cluster.links")) {
            total -= number(stats.get(notData));
        }
        return total;
    }

    private static long number(Object value) {
        return value instanceof Number n ? n.longValue() : value == null ? 0 : Long.parseLong(value.toString());
    }

    private static List<String> keys(Jedis jedis) {
        List<String> keys = new ArrayList<>();
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            ScanResult<String> page = jedis.scan(cursor, new ScanParams().count(1000));
            keys.addAll(page.getResult());
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        return keys;
    }
}
