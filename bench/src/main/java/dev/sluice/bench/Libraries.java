package dev.sluice.bench;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

import java.net.URI;

/** Library names, and the peers' clients set up as their documentation recommends. */
final class Libraries {

    static final String SLUICE = "sluice";
    /**
     * Sluice with a local budget on the policy ({@link BenchEnv#LOCAL_BUDGET}): each node admits a hot key's requests
     * from tokens it took in advance; measured on the hot key, beside Sluice's exact decisions.
     */
    static final String SLUICE_BUDGET = "sluice-budget";
    static final String BUCKET4J = "bucket4j";
    static final String REDISSON = "redisson";
    /** Not a library: {@code redis-benchmark} running Sluice's gcra.lua by EVALSHA, the one-round-trip ceiling. */
    static final String CEILING = "redis-benchmark";
    /**
     * Not a library: {@code redis-benchmark -P 16}, the same calls sixteen to a write per connection, what the
     * server itself can decide when round trips cost nothing (the pipelined ceiling).
     */
    static final String CEILING_PIPELINED = "redis-benchmark-P16";

    /** Requests in flight per connection of {@link #CEILING_PIPELINED}. */
    static final int PIPELINE = 16;
    /** Not a library: gcra.lua called straight through pooled Jedis, what Sluice adds nothing to. */
    static final String RAW_EVALSHA = "jedis-evalsha";
    /** Not a library: a bare SET NX PX lock with a compare-and-delete release, the floor of any safe lock. */
    static final String LOCK_FLOOR = "set-nx-px";

    private Libraries() {
    }

    /** A pooled Jedis client for Bucket4j with the same pool size as Sluice's. */
    static UnifiedJedis jedis(String redisUri) {
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(BenchEnv.POOL_SIZE);
        pool.setMaxIdle(BenchEnv.POOL_SIZE);
        URI uri = URI.create(redisUri);
        return RedisClient.builder().hostAndPort(uri.getHost(), uri.getPort()).poolConfig(pool).build();
    }

    /**
     * Redisson's single-server client with its defaults (Netty, pipelined connections) apart from the
     * pool size, set to the same as the others' (Redisson's default is also 64).
     */
    static RedissonClient redisson(String redisUri) {
        Config config = new Config();
        config.useSingleServer()
                .setAddress(redisUri)
                .setConnectionPoolSize(BenchEnv.POOL_SIZE);
        return Redisson.create(config);
    }
}
