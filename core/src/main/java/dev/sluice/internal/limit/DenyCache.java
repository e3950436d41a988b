package dev.sluice.internal.limit;

import dev.sluice.RateLimitDecision;

import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

/**
 * The node's memory of buckets that Redis refused, so that a client hammering a refused key costs no Redis
 * call until it could pass again ({@code sluice.deny-cache.size}).
 *
 * <p>Exact, not an approximation: under GCRA a refusal says the bucket cannot hold {@code cost} tokens before
 * {@code retryAfter}, and nothing but time adds tokens (other nodes only take them), so a request of the same
 * or a larger cost on the same bucket is refused until then whatever Redis would say. A smaller cost may pass
 * earlier and is always asked. Admissions are never remembered. Entries end at their deadline, and are trusted
 * no longer than {@link #MAX_TRUST_MILLIS} in any case: a bucket changed behind the engine's back (deleted by
 * hand) is noticed within that, and a reset ({@link BucketResets}) makes every node {@link #forget} it at once.
 * When the cache is full, expired entries are dropped and, if that is not enough, a tenth of the entries.
 *
 * <p>Thread-safe; the time source is injectable for tests.
 */
public final class DenyCache {

    /**
     * The longest a remembered refusal is used, whatever its wait: after this the bucket is asked again (one
     * Redis call per refused key and node every 5 s at most, against one per request without the cache).
     */
    public static final long MAX_TRUST_MILLIS = 5_000;

    /**
     * @param deadlineNanos when the refusal ends (what the refused client is told)
     * @param trustedUntilNanos when the entry ends: the deadline, or {@link #MAX_TRUST_MILLIS} after the refusal
     */
    private record Entry(Object shape, long deadlineNanos, long trustedUntilNanos, long cost, long decidedAtNanos,
                         RateLimitDecision decision) {
    }

    private final int maxSize;
    private final LongSupplier nanoClock;
    private final Map<String, Entry> entries = new ConcurrentHashMap<>();
    private final AtomicBoolean remembered = new AtomicBoolean();
    private volatile Runnable firstRefusal = () -> { };

    /** @param maxSize at most this many refused buckets remembered; 0 switches the cache off */
    public DenyCache(int maxSize, LongSupplier nanoClock) {
        if (maxSize < 0) {
            throw new IllegalArgumentException("size " + maxSize);
        }
        this.maxSize = maxSize;
        this.nanoClock = nanoClock;
    }

    /**
     * The refusal still in force for {@code bucketKey} at {@code cost}, its times counted down to now; null
     * when the bucket has to be asked.
     *
     * @param shape what the bucket's limits are (the policy's bandwidths): a refusal under other limits, such
     *              as a policy redefined with the same name, says nothing
     */
    RateLimitDecision refusal(String bucketKey, Object shape, long cost) {
        if (maxSize == 0) {
            return null;
        }
        Entry entry = entries.get(bucketKey);
        if (entry == null || cost < entry.cost || !entry.shape.equals(shape)) {
            return null;
        }
        long now = nanoClock.getAsLong();
        if (now - entry.trustedUntilNanos >= 0) {
            entries.remove(bucketKey, entry);
            return null;
        }
        RateLimitDecision d = entry.decision;
        long elapsedMillis = (now - entry.decidedAtNanos) / 1_000_000;
        long left = Math.max(1, -Math.floorDiv(-(entry.deadlineNanos - now), 1_000_000L));
        return RateLimitDecision.of(d.policy(), false, d.remaining(), d.limit(), d.windowSeconds(), left,
                Math.max(0, d.resetMillis() - elapsedMillis));
    }

    /** Remembers a refusal Redis gave for {@code bucketKey} at {@code cost}; ignores admissions and "never". */
    void remember(String bucketKey, Object shape, long cost, RateLimitDecision decision) {
        if (maxSize == 0 || decision.allowed() || decision.never() || decision.retryAfterMillis() <= 0) {
            return;
        }
        if (entries.size() >= maxSize && !entries.containsKey(bucketKey)) {
            makeRoom();
        }
        long now = nanoClock.getAsLong();
        long deadline = now + decision.retryAfterMillis() * 1_000_000L;
        long trustedUntil = now + Math.min(decision.retryAfterMillis(), MAX_TRUST_MILLIS) * 1_000_000L;
        entries.put(bucketKey, new Entry(shape, deadline, trustedUntil, cost, now, decision));
        if (!remembered.get() && remembered.compareAndSet(false, true)) {
            firstRefusal.run();
        }
    }

    /**
     * Runs {@code action} on the first refusal this cache remembers (a node with nothing remembered has nothing
     * to forget, so it need not listen for resets before then); at once if there was one. Set it before requests
     * come, and make it idempotent: a refusal racing with this call may run it twice.
     */
    public void onFirstRefusal(Runnable action) {
        firstRefusal = action;
        if (remembered.get()) {
            action.run();
        }
    }

    /** Forgets the refusal of {@code bucketKey}, if any: the bucket was reset. */
    public void forget(String bucketKey) {
        entries.remove(bucketKey);
    }

    private void makeRoom() {
        long now = nanoClock.getAsLong();
        entries.values().removeIf(e -> now - e.trustedUntilNanos >= 0);
        int excess = entries.size() - (maxSize - Math.max(1, maxSize / 10));
        for (Iterator<String> it = entries.keySet().iterator(); excess > 0 && it.hasNext(); excess--) {
            it.next();
            it.remove();
        }
    }

    /** Forgets everything (a configuration change may have made the remembered refusals wrong). */
    public void clear() {
        entries.clear();
    }

    /** Refusals remembered now, expired ones included until they are next looked at. */
    public int size() {
        return entries.size();
    }
}
