package dev.sluice.internal.lock;

import dev.sluice.internal.redis.PermitRenewal;
import dev.sluice.internal.redis.ScriptCalls;
import dev.sluice.internal.redis.ScriptReplies;

import java.util.List;

/**
 * Semaphores on one Redis: a sorted set {@code <prefix>:sem:{<material>}} of permit ids scored by their
 * expiry on the Redis clock ({@code TIME} inside the scripts, never the client's clock). A refused acquisition
 * marks the semaphore as awaited ({@code <key>:waiters}, same hash slot) with this store's instance id (or
 * {@code *} when another instance marked it too), and a return is published only when that mark is there. A
 * hand-over ({@code semaphore-handover.lua}) passes a permit between threads of this instance only while the mark
 * names nobody else. Thread-safe.
 */
public final class RedisSemaphoreStore implements SemaphoreStore {

    private final ScriptCalls calls;
    private final LockScripts scripts;
    private final String channel;
    /** This instance in waiters marks, unique per store (one per application). */
    private final String instance = Owners.newToken();

    /**
     * @param calls   how script calls travel: combined with other threads' calls, or each on its own
     *                ({@link ScriptCalls#alone}, a Redlock master)
     * @param channel where returns are published; the application's subscriber listens on it
     */
    public RedisSemaphoreStore(ScriptCalls calls, LockScripts scripts, String channel) {
        this.calls = calls;
        this.scripts = scripts;
        this.channel = channel;
    }

    @Override
    public Attempt tryAcquire(String key, String permitId, int permits, long leaseMillis) {
        Object reply = calls.eval(scripts.semaphoreAcquire(), List.of(key, RedisLockStore.waitersKey(key)),
                List.of(permitId, Integer.toString(permits), Long.toString(leaseMillis), RedisLockStore.WAITERS_MARGIN,
                        instance));
        long[] values = ScriptReplies.integers(reply, 2, scripts.semaphoreAcquire());
        return ScriptReplies.flag(values[0], reply, scripts.semaphoreAcquire()) ? Attempt.granted(0)
                : Attempt.refused(values[1]);
    }

    @Override
    public LockStore.Handover handOver(String key, String holder, String next, int permits, long leaseMillis) {
        Object reply = calls.eval(scripts.semaphoreHandover(), List.of(key, RedisLockStore.waitersKey(key)),
                List.of(holder, next, Integer.toString(permits), Long.toString(leaseMillis), instance, channel));
        long[] values = ScriptReplies.integers(reply, 2, scripts.semaphoreHandover());
        return new LockStore.Handover(ScriptReplies.flag(values[0], reply, scripts.semaphoreHandover()),
                ScriptReplies.flag(values[1], reply, scripts.semaphoreHandover()) ? Attempt.granted(0)
                        : Attempt.refused(0));
    }

    @Override
    public boolean release(String key, String permitId) {
        return ScriptReplies.flag(calls.eval(scripts.semaphoreRelease(), List.of(key, RedisLockStore.waitersKey(key)),
                List.of(permitId, channel)), scripts.semaphoreRelease());
    }

    @Override
    public boolean extend(String key, String permitId, long leaseMillis) {
        return PermitRenewal.renewed(calls.eval(scripts.semaphoreExtend(), PermitRenewal.keys(key),
                PermitRenewal.args(permitId, leaseMillis)), scripts.semaphoreExtend());
    }
}
