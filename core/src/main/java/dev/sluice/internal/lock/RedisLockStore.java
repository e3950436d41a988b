package dev.sluice.internal.lock;

import dev.sluice.internal.redis.ScriptCalls;
import dev.sluice.internal.redis.ScriptReplies;

import java.util.List;

/**
 * Locks on one Redis (standalone, Sentinel or Cluster): {@code lock-acquire.lua} (take the lock if free or already
 * the caller's, plus the fencing counter; a refusal marks the lock as awaited; given a holder, the holder's lock
 * passed to the next local thread unless another instance waits), {@code lock-release.lua} (compare-and-delete,
 * plus PUBLISH when marked) and {@code lock-extend.lua} (compare-and-PEXPIRE), each one {@code EVALSHA}. The lock, its
 * counter ({@code :fence}) and its waiters mark ({@code :waiters}) share a hash slot through the braces of
 * {@code <prefix>:lock:{<material>}}.
 *
 * <p>Calls travel as its {@link ScriptCalls} sends them: combined with other threads' lock and semaphore calls into
 * one pipeline when the application pipelines, else each on its own. Either way a broken connection fails the call
 * and is never retried: a release that ran before its reply was lost would, sent again, report the lock as lost.
 * The caller treats the failure as it would any unanswered call (an acquisition is undone by compare-and-delete).
 * Thread-safe.
 */
public final class RedisLockStore implements LockStore {

    /**
     * How long a waiters mark outlives the lease it waits for. A waiter tries again (and so renews the mark)
     * no later than when that lease runs out; the margin covers the time its retry takes to arrive.
     */
    static final long WAITERS_MARGIN_MILLIS = 1_000;
    static final String WAITERS_MARGIN = Long.toString(WAITERS_MARGIN_MILLIS);
    private static final String FENCE_TTL = Long.toString(InProcessLockStore.FENCE_TTL_MILLIS);

    private final ScriptCalls calls;
    private final LockScripts scripts;
    private final String channel;

    /**
     * @param calls   how script calls travel: combined with other threads' calls, or each on its own
     *                ({@link ScriptCalls#alone}, a Redlock master)
     * @param channel where releases are published; the application's subscriber listens on it
     */
    public RedisLockStore(ScriptCalls calls, LockScripts scripts, String channel) {
        this.calls = calls;
        this.scripts = scripts;
        this.channel = channel;
    }

    @Override
    public Attempt tryLock(String key, String owner, long leaseMillis) {
        Object reply = calls.eval(scripts.lockAcquire(), List.of(key, key + ":fence", waitersKey(key)),
                List.of(owner, Long.toString(leaseMillis), FENCE_TTL, WAITERS_MARGIN));
        return attempt(acquireReply(reply));
    }

    /** {@code {1, fencing token, held}} or {@code {0, the holder's PTTL, held}}, as {@code lock-acquire.lua} replies. */
    private long[] acquireReply(Object reply) {
        long[] values = ScriptReplies.integers(reply, 3, scripts.lockAcquire());
        ScriptReplies.flag(values[0], reply, scripts.lockAcquire());
        ScriptReplies.flag(values[2], reply, scripts.lockAcquire());
        return values;
    }

    private static Attempt attempt(long[] reply) {
        long value = reply[1];
        if (reply[0] == 1L) {
            return Attempt.granted(value);
        }
        // PTTL: -2 the holder vanished just now (try again at once), -1 no expiry (should not happen; poll).
        return Attempt.refused(value == -1 ? Long.MAX_VALUE : value);
    }

    @Override
    public boolean unlock(String key, String owner) {
        return ScriptReplies.flag(calls.eval(scripts.lockRelease(), List.of(key, waitersKey(key)),
                List.of(owner, channel)), scripts.lockRelease());
    }

    @Override
    public Handover handOver(String key, String holder, String next, long leaseMillis) {
        long[] reply = acquireReply(calls.eval(scripts.lockAcquire(), List.of(key, key + ":fence", waitersKey(key)),
                List.of(next, Long.toString(leaseMillis), FENCE_TTL, WAITERS_MARGIN, holder, channel)));
        return new Handover(reply[2] == 1L, attempt(reply));
    }

    /**
     * Raises a fencing counter to at least {@code token} ({@code lock-fence.lua}, Redlock's write-back).
     *
     * @return the counter afterwards, at least {@code token}
     * @throws dev.sluice.StoreUnavailableException naming the script when it answers anything else
     */
    public long raiseFence(String fenceKey, long token) {
        return ScriptReplies.atLeast(calls.eval(scripts.lockFence(), List.of(fenceKey),
                List.of(Long.toString(token), FENCE_TTL)), token, scripts.lockFence());
    }

    /** The mark a refused acquisition leaves so that the release is published: {@code <key>:waiters}. */
    static String waitersKey(String key) {
        return key + ":waiters";
    }

    @Override
    public boolean extend(String key, String owner, long leaseMillis) {
        return ScriptReplies.flag(calls.eval(scripts.lockExtend(), List.of(key),
                List.of(owner, Long.toString(leaseMillis))), scripts.lockExtend());
    }
}
