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
        args = dev.sluice.bench.servlet.GcraArgs.of(tokens, period);
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
