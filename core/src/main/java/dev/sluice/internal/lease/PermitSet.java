package dev.sluice.internal.lease;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/**
 * The permits of one semaphore or one key's concurrency limit in this JVM's memory: each permit id with the instant
 * its lease runs out, on its store's clock and in its store's unit. The in-process twin of the sorted sets of
 * {@code include/permit-set.lua} (the permit set of the semaphore scripts and of {@code gcra.lua}), shared by the
 * in-process semaphore and rate-limit stores so that both admit, reclaim, renew and return permits alike. A lease runs
 * out at its instant: a permit whose expiry is at or before now is gone.
 *
 * <p>Not thread-safe: its store serialises every call.
 */
public final class PermitSet {

    private final Map<String, Long> expiries = new HashMap<>();

    /** Removes the permits whose lease has run out by {@code now}. */
    public void reclaim(long now) {
        expiries.values().removeIf(expiresAt -> expiresAt <= now);
    }

    /**
     * Reclaims the permits run out by {@code now}, then answers whether {@code permitId} may hold one of
     * {@code permits}: it holds one already (its own, from a retried call or a permit passed on, never counted
     * against it), or one is free.
     */
    public boolean admits(String permitId, int permits, long now) {
        reclaim(now);
        return holds(permitId) || size() < permits;
    }

    /** Whether {@code permitId} holds a permit (run out or not: {@link #reclaim} first). */
    public boolean holds(String permitId) {
        return expiries.containsKey(permitId);
    }

    /** Permits held, run out or not. */
    public int size() {
        return expiries.size();
    }

    public boolean isEmpty() {
        return expiries.isEmpty();
    }

    /** Gives {@code permitId} a permit until {@code expiresAt}, or moves its lease there when it holds one. */
    public void grant(String permitId, long expiresAt) {
        expiries.put(permitId, expiresAt);
    }

    /**
     * Returns {@code permitId}'s permit, if any.
     *
     * @return whether it held one whose lease had not run out by {@code now}
     */
    public boolean remove(String permitId, long now) {
        Long expiresAt = expiries.remove(permitId);
        return expiresAt != null && expiresAt > now;
    }

    /**
     * Renews {@code permitId}'s permit until {@code expiresAt} if its lease has not run out by {@code now}; removes
     * it if it has.
     *
     * @return whether it was renewed
     */
    public boolean extend(String permitId, long now, long expiresAt) {
        Long current = expiries.get(permitId);
        if (current == null || current <= now) {
            expiries.remove(permitId);
            return false;
        }
        expiries.put(permitId, expiresAt);
        return true;
    }

    /** The earliest lease end; the set must not be empty. */
    public long earliest() {
        return Collections.min(expiries.values());
    }

    /** The latest lease end; the set must not be empty. */
    public long latest() {
        return Collections.max(expiries.values());
    }
}
