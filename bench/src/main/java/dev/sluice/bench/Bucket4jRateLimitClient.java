package dev.sluice.bench;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.redis.jedis.Bucket4jJedis;
import io.github.bucket4j.redis.jedis.cas.JedisBasedProxyManager;
import redis.clients.jedis.UnifiedJedis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Bucket4j's Jedis integration as its reference documentation sets it up: a compare-and-swap proxy manager
 * over a pooled Jedis client, keys expiring once their bucket would be full again. Bucket proxies are
 * built once per key up front (cheap objects, no Redis call), so the measured call is only
 * {@code tryConsume(1)}.
 */
final class Bucket4jRateLimitClient implements RateLimitClient {

    private final UnifiedJedis jedis;
    private final BucketProxy[] buckets;

    Bucket4jRateLimitClient(String redisUri, String[] keyNames, long tokens, Duration period) {
        jedis = Libraries.jedis(redisUri);
        JedisBasedProxyManager<byte[]> proxies = Bucket4jJedis.casBasedBuilder(jedis)
                .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(10)))
                .build();
        BucketConfiguration configuration = BucketConfiguration.builder()
                .addLimit(limit -> limit.capacity(tokens).refillGreedy(tokens, period))
                .build();
        buckets = new BucketProxy[keyNames.length];
        for (int i = 0; i < keyNames.length; i++) {
            buckets[i] = proxies.builder().build(("bucket4j:" + keyNames[i]).getBytes(StandardCharsets.UTF_8), () -> configuration);
        }
    }

    @Override
    public boolean tryAcquire(int key) {
        return buckets[key].tryConsume(1);
    }

    @Override
    public void close() {
        jedis.close();
    }
}
