package dev.sluice.internal.limit;

import dev.sluice.internal.lease.PermitSet;

import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * Rate-limit buckets in this JVM's memory, with the semantics of the Redis store (same GCRA code path,
 * same all-or-nothing rule). Used when no Redis is configured, and as the reference in tests. Limits are
 * then local to this JVM.
 *
 * <p>Thread-safe: decisions are serialised by one lock, as Redis serialises scripts. Expired buckets are
 * swept while deciding, so memory follows the number of active keys.
 */
public final class InProcessRateLimitStore implements RateLimitStore {

    private static final int SWEEP_EVERY = 4096;

    private record Entry(Gcra.Tat tat, long expiresAt) {
    }

    private final Map<String, Entry> buckets = new ConcurrentHashMap<>();
    /** Concurrency limits' permit sets: permit id to the millisecond its lease runs out; guarded by {@link #lock}. */
    private final Map<String, PermitSet> permitSets = new java.util.HashMap<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final LongSupplier microsClock;
    private int sinceSweep;

    /** A store on the JVM's wall clock. */
    public InProcessRateLimitStore() {
        this(InProcessRateLimitStore::wallClockMicros);
    }

    /** A store on the given clock (microseconds; must not go backwards by much). */
    public InProcessRateLimitStore(LongSupplier microsClock) {
        this.microsClock = microsClock;
    }

    static long wallClockMicros() {
        java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }

    @Override
    public List<BucketOutcome> consume(List<BucketRequest> requests) {
        lock.lock();
        try {
            long now = microsClock.getAsLong();
            if (++sinceSweep >= SWEEP_EVERY) {
                sweep(now);
            }
            return Gcra.decide(now, requests, new Gcra.Buckets() {
                @Override
                public Gcra.Tat read(String key) {
                    Entry e = buckets.get(key);
                    return e == null || e.expiresAt <= now ? null : e.tat;
                }

                @Override
                public void write(String key, Gcra.Tat tat, long at) {
                    long expiresAt = expiry(tat, at);
                    if (expiresAt <= at) {
                        buckets.remove(key); // a refund that left the bucket full, as the script's DEL
                    } else {
                        buckets.put(key, new Entry(tat, expiresAt));
                    }
                }

                @Override
                public PermitSet permits(String key) {
                    return permitSets.computeIfAbsent(key, k -> new PermitSet());
                }
            });
        } finally {
            lock.unlock();
        }
    }

    /** Deletes the bucket {@code key}: its client has the whole burst again (a reset). */
    public void reset(String key) {
        lock.lock();
        try {
            buckets.remove(key);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int release(List<String> keys, String permitId) {
        lock.lock();
        try {
            long nowMillis = Math.floorDiv(microsClock.getAsLong(), 1000L);
            int held = 0;
            for (String key : keys) {
                PermitSet set = permitSets.get(key);
                if (set != null && set.remove(permitId, nowMillis)) {
                    held++;
                }
                if (set != null && set.isEmpty()) {
                    permitSets.remove(key);
                }
            }
            return held;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean renew(String key, String permitId, long leaseMillis) {
        lock.lock();
        try {
            long nowMillis = Math.floorDiv(microsClock.getAsLong(), 1000L);
            PermitSet set = permitSets.get(key);
            return set != null && set.extend(permitId, nowMillis, nowMillis + leaseMillis);
        } finally {
            lock.unlock();
        }
    }

    /** Same rounding as the script's {@code PX}: the TAT rounded up to the microsecond, then to the millisecond. */
    private static long expiry(Gcra.Tat tat, long now) {
        long micros = tat.micros() - now + (tat.remainder() > 0 ? 1 : 0);
        return now + -Math.floorDiv(-micros, 1000L) * 1000L;
    }

    private void sweep(long now) {
        sinceSweep = 0;
        for (Iterator<Entry> it = buckets.values().iterator(); it.hasNext();) {
            if (it.next().expiresAt <= now) {
                it.remove();
            }
        }
        long nowMillis = Math.floorDiv(now, 1000L);
        for (Iterator<PermitSet> it = permitSets.values().iterator(); it.hasNext();) {
            PermitSet set = it.next();
            set.reclaim(nowMillis);
            if (set.isEmpty()) {
                it.remove();
            }
        }
    }

    /** Number of buckets held, expired ones not yet swept included (for tests). */
    int size() {
        return buckets.size();
    }

    @Override
    public void close() {
        buckets.clear();
        lock.lock();
        try {
            permitSets.clear();
        } finally {
            lock.unlock();
        }
    }
}
