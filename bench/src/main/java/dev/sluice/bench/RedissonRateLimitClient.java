package dev.sluice.bench;

import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;
import org.redisson.api.RFuture;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Redisson's {@code RRateLimiter} ({@code OVERALL}: one limit shared by every client). A limiter must be
 * configured ({@code trySetRate}) before use; that is done for every key up front, pipelined, so the
 * measured call is only {@code tryAcquire()}. Handing Redisson its setup for free favours it: an
 * application limiting per client would pay that extra round trip whenever it meets a new key.
 */
final class RedissonRateLimitClient implements RateLimitClient {

    private final RedissonClient redisson;
    private final RRateLimiter[] limiters;

    RedissonRateLimitClient(String redisUri, String[] keyNames, long tokens, Duration period) {
        redisson = Libraries.redisson(redisUri);
        limiters = new RRateLimiter[keyNames.length];
        List<RFuture<Boolean>> pending = new ArrayList<>();
        for (int i = 0; i < keyNames.length; i++) {
            limiters[i] = redisson.getRateLimiter("redisson:" + keyNames[i]);
            pending.add(limiters[i].trySetRateAsync(RateType.OVERALL, tokens, period));
            if (pending.size() == 1_000) {
                pending.forEach(f -> f.toCompletableFuture().join());
                pending.clear();
            }
        }
        pending.forEach(f -> f.toCompletableFuture().join());
    }

    @Override
    public boolean tryAcquire(int key) {
        return limiters[key].tryAcquire();
    }

    @Override
    public void close() {
        redisson.shutdown();
    }
}
