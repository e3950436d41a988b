package dev.sluice.internal.lock;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Locks in this JVM's memory with the semantics of {@code lock-acquire.lua} and friends: leases on the
 * store's clock, compare-and-delete release, the same fencing-token rule. Used when no Redis is
 * configured (locks are then local to this JVM) and as the reference in the contract tests.
 *
 * <p>Thread-safe: every operation is serialised on this store, as Redis serialises scripts. Expired
 * entries are swept while acquiring, so memory follows the number of live keys.
 */
public final class InProcessLockStore implements LockStore {

    /** How long a fencing counter outlives the last acquisition of its key (see {@link #tokenAfter}). */
    public static final long FENCE_TTL_MILLIS = 24L * 60 * 60 * 1000;

    private static final int SWEEP_EVERY = 4096;

    private record Entry(String owner, long expiresAtMicros) {
    }

    private final Map<String, Entry> locks = new HashMap<>();
    private final Map<String, Entry> fences = new HashMap<>();
    private final LongSupplier microsClock;
    private final ReleaseSignals signals;
    private int sinceSweep;

    /**
     * @param microsClock the store's clock in microseconds since the epoch
     * @param signals     woken on every release
     */
    public InProcessLockStore(LongSupplier microsClock, ReleaseSignals signals) {
        this.microsClock = microsClock;
        this.signals = signals;
    }

    /** A store on the JVM's wall clock. */
    public InProcessLockStore(ReleaseSignals signals) {
        this(InProcessLockStore::wallClockMicros, signals);
    }

    static long wallClockMicros() {
        java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }

    /**
     * The fencing-token rule shared with the Lua script: one more than the last token of the key, but never
     * less than the store clock in microseconds. The clock floor keeps tokens increasing when the counter
     * is gone (expired after {@link #FENCE_TTL_MILLIS} idle, or lost in a Redis fail-over), as long as the
     * clock has not gone back by more than the time since the last acquisition.
     */
    static long tokenAfter(long lastToken, long nowMicros) {
        return Math.max(lastToken + 1, nowMicros);
    }

    @Override
    public synchronized Attempt tryLock(String key, String owner, long leaseMillis) {
        long now = microsClock.getAsLong();
        if (++sinceSweep >= SWEEP_EVERY) {
            sweep(now);
        }
        Entry current = locks.get(key);
        boolean retry = current != null && current.expiresAtMicros > now && current.owner.equals(owner);
        if (current != null && current.expiresAtMicros > now && !retry) {
            return Attempt.refused(ceilMillis(current.expiresAtMicros - now));
        }
        locks.put(key, new Entry(owner, now + leaseMillis * 1000));
        String fenceKey = key + ":fence";
        Entry fence = fences.get(fenceKey);
        long last = fence == null || fence.expiresAtMicros <= now ? 0 : Long.parseLong(fence.owner);
        if (retry && last != 0) {
            // The caller owns it already (a retry): its lease again and the token it was issued, as the script does.
            return Attempt.granted(last);
        }
        long token = tokenAfter(last, now);
        fences.put(fenceKey, new Entry(Long.toString(token), now + FENCE_TTL_MILLIS * 1000));
        return Attempt.granted(token);
    }

    /** Release and refuse: this store does not know which instance a waiter belongs to. */
    @Override
    public Handover handOver(String key, String holder, String next, long leaseMillis) {
        return LockStore.releaseAndRefuse(this, key, holder);
    }

    @Override
    public boolean unlock(String key, String owner) {
        synchronized (this) {
            if (!owns(key, owner, microsClock.getAsLong())) {
                return false;
            }
            locks.remove(key);
        }
        signals.signal(key);
        return true;
    }

    @Override
    public synchronized boolean extend(String key, String owner, long leaseMillis) {
        long now = microsClock.getAsLong();
        if (!owns(key, owner, now)) {
            return false;
        }
        locks.put(key, new Entry(owner, now + leaseMillis * 1000));
        return true;
    }

    private boolean owns(String key, String owner, long now) {
        Entry current = locks.get(key);
        return current != null && current.expiresAtMicros > now && current.owner.equals(owner);
    }

    private void sweep(long now) {
        sinceSweep = 0;
        for (Map<String, Entry> map : java.util.List.of(locks, fences)) {
            for (Iterator<Entry> it = map.values().iterator(); it.hasNext();) {
                if (it.next().expiresAtMicros <= now) {
                    it.remove();
                }
            }
        }
    }

    static long ceilMillis(long micros) {
        return -Math.floorDiv(-micros, 1000L);
    }

    @Override
    public synchronized void close() {
        locks.clear();
        fences.clear();
    }
}
