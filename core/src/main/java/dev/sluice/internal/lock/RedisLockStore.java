package dev.sluice.internal.lock;

import dev.sluice.internal.redis.ScriptExecutor;

import java.util.List;

/**
 * Locks on one Redis (standalone, Sentinel or Cluster): {@code lock-acquire.lua} (SET NX PX plus the fencing
 * counter), {@code lock-release.lua} (compare-and-delete plus PUBLISH) and {@code lock-extend.lua}
 * (compare-and-PEXPIRE), each one {@code EVALSHA}. The lock and its counter share a hash slot through the
 * braces of {@code <prefix>:lock:{<material>}}. Thread-safe.
 */
public final class RedisLockStore implements LockStore {

    private final ScriptExecutor executor;
    private final LockScripts scripts;
    private final String channel;

    /** @param channel where releases are published; the application's subscriber listens on it */
    public RedisLockStore(ScriptExecutor executor, LockScripts scripts, String channel) {
        this.executor = executor;
        this.scripts = scripts;
        this.channel = channel;
    }

    @Override
    public Attempt tryLock(String key, String owner, long leaseMillis) {
        List<?> reply = (List<?>) executor.eval(scripts.lockAcquire(), List.of(key, key + ":fence"),
                List.of(owner, Long.toString(leaseMillis), Long.toString(InProcessLockStore.FENCE_TTL_MILLIS)));
        long value = (Long) reply.get(1);
        if ((Long) reply.get(0) == 1L) {
            return Attempt.granted(value);
        }
        // PTTL: -2 the holder vanished just now (try again at once), -1 no expiry (should not happen; poll).
        return Attempt.refused(value == -1 ? Long.MAX_VALUE : value);
    }

    @Override
    public boolean unlock(String key, String owner) {
        return (Long) executor.eval(scripts.lockRelease(), List.of(key), List.of(owner, channel)) == 1L;
    }

    @Override
    public boolean extend(String key, String owner, long leaseMillis) {
        return (Long) executor.eval(scripts.lockExtend(), List.of(key), List.of(owner, Long.toString(leaseMillis))) == 1L;
    }
}
