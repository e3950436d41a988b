package dev.sluice.bench;

import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.SetParams;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The floor of any safe Redis lock, as a reference rather than a peer: {@code SET key token NX PX} to take it
 * and a compare-and-delete script to release it, two round trips, with no fencing token, no lease renewal,
 * no release notification and no waiting (it is only run where nobody waits: a key per thread).
 */
final class RawLockClient implements LockClient {

    private static final String RELEASE =
            "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";

    private final UnifiedJedis jedis;
    private final String release;
    private final String prefix = UUID.randomUUID() + ":";
    private final AtomicLong tokens = new AtomicLong();

    RawLockClient(String redisUri) {
        jedis = Libraries.jedis(redisUri);
        release = jedis.scriptLoad(RELEASE);
    }

    @Override
    public Held acquire(String key) {
        String redisKey = "raw:lock:" + key;
        String token = prefix + tokens.incrementAndGet();
        if (!"OK".equals(jedis.set(redisKey, token, SetParams.setParams().nx().px(30_000)))) {
            throw new IllegalStateException("the floor lock is only measured where nobody waits, but " + key + " was held");
        }
        return () -> jedis.evalsha(release, List.of(redisKey), List.of(token));
    }

    @Override
    public void close() {
        jedis.close();
    }
}
