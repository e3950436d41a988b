package dev.sluice.bench;

import redis.clients.jedis.UnifiedJedis;

import java.util.List;

/**
 * A reference, not a peer: Sluice's own {@code gcra.lua} called straight through a pooled Jedis client with
 * prebuilt keys and arguments, with nothing around it (no configuration, key escaping, request or decision
 * objects, failure handling). The gap between it and Sluice is what Sluice's own code costs per decision;
 * the gap between it and {@code redis-benchmark} is what a blocking JVM client costs.
 */
final class RawEvalshaClient implements RateLimitClient {

    private final UnifiedJedis jedis;
    private final String sha;
    private final List<String>[] keys;
    private final List<String> args;

    @SuppressWarnings("unchecked")
    RawEvalshaClient(String redisUri, String[] keyNames, long tokens, java.time.Duration period) {
        jedis = Libraries.jedis(redisUri);
        sha = jedis.scriptLoad(script());
        keys = new List[keyNames.length];
        for (int i = 0; i < keyNames.length; i++) {
            keys[i] = List.of("sluice:rl:{" + SluiceRateLimitClient.POLICY + ":" + keyNames[i] + "}");
        }
        args = gcraArgs(tokens, period);
    }

    /**
     * {@code gcra.lua}'s {@code ARGV} as Sluice's engine sends it for one enforced policy of one bandwidth whose
     * burst is its token count (the header of {@code gcra.lua} says what each is): policy count, kind, decides,
     * charge, cost, bandwidth count, interval in the bucket's units, units per µs, capacity. The references call
     * the script with these, so that they measure the call Sluice makes.
     */
    static List<String> gcraArgs(long tokens, java.time.Duration period) {
        var bandwidth = new dev.sluice.internal.config.Bandwidth(tokens, period, tokens);
        return List.of("1", "bucket", "1", "if-all-admit", "1", "1", String.valueOf(bandwidth.intervalUnits()),
                String.valueOf(bandwidth.unitsPerMicro()), String.valueOf(tokens));
    }

    @Override
    public boolean tryAcquire(int key) {
        List<?> reply = (List<?>) jedis.evalsha(sha, keys[key], args);
        return (Long) reply.get(0) == 1L;
    }

    @Override
    public void close() {
        jedis.close();
    }

    private static String script() {
        return RedisBenchmarkRunner.script();
    }
}
