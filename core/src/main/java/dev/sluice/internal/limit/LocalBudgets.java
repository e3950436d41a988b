package dev.sluice.internal.limit;

import dev.sluice.RateLimitDecision;
import dev.sluice.internal.config.PolicyConfig;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The node's local budgets ({@code sluice.limit.<policy>.local-budget}): tokens that a decision reserved from a
 * key's bucket beside its own charge, in the same {@code gcra.lua} call, and that later requests of that key take
 * here without a Redis call until they are spent or their age ({@link PolicyConfig#localBudgetMillis()}) has passed.
 *
 * <p><b>The bound.</b> A node holds at most {@link PolicyConfig#localBudgetTokens()} tokens of one key at any moment:
 * one reservation at a time per key and node asks for at most that many less the cost and less what the node still
 * holds, which only decreases while the reservation travels. Tokens count as spent when a request takes them; those
 * of a request that is then refused go back only while their batch is the key's and no reservation is in flight (else
 * they are dropped), so that giving back never raises what a node holds beside a reservation. The bucket in Redis is
 * charged when tokens are reserved, so over any window the key's requests admitted on every node exceed what the
 * bucket alone would admit by at most what the nodes held at the window's start: {@code nodes ×
 * localBudgetTokens()}. Tokens unspent when their age passes are dropped (never spent late); those returned
 * ({@link #returnAll}) move the bucket back.
 *
 * <p><b>The batch.</b> Each reservation asks for what the node used of the key since the previous one, scaled to half
 * an age at the rate it used it (so that a batch is normally spent well before its age); at most twice what it used
 * plus what it still holds, at least the request's cost: a node that sees one request a minute reserves only that
 * request's own tokens, a busy one about doubles its batch at each reservation up to the bound. The next batch is asked
 * for when half of the last is left, by a request paid from it that also sends a check reserving the next batch
 * (deciding nothing), so that a busy key does not run dry while the reservation travels; requests then spend what is
 * left of the older batch first.
 *
 * <p><b>Memory.</b> At most {@link #MAX_KEYS} keys are held; when full, budgets that hold nothing live make room,
 * then arbitrary ones, whose tokens are dropped (lost to the bucket, never spent).
 *
 * <p>Thread-safe and lock-free: a take is one compare-and-set on the batch's count; the one thread that reserves for
 * a key is chosen by a compare-and-set, and other threads that find the batch empty meanwhile are decided by Redis
 * without reserving (nobody waits for a reservation, and a reservation is not started while tokens come back).
 */
final class LocalBudgets {

    /** The most keys whose budgets one node keeps. */
    static final int MAX_KEYS = 10_000;

    /** A batch's count once it was dropped or returned: no take can succeed on it. */
    private static final long RETIRED = -1;
    /** A budget's state while one thread reserves its next batch. */
    private static final int RESERVING = -1;
    /**
     * The next batch is reserved once fewer than this part of the last one's tokens are left: half a batch covers
     * the round trip of the reservation (measured at up to 10 ms on a loaded host with 32 threads on two cores).
     */
    static final int LOW_WATER = 2;

    /**
     * Tokens reserved by one decision, spent locally until {@link #expiresAt} (the monotonic clock, counted from
     * before the reservation was sent, so never later than its age after Redis took them).
     */
    static final class Batch {
        final long expiresAt;
        final long granted;
        final AtomicLong left;
        /** What Redis answered the request that reserved them (its remaining counting the batch as taken). */
        final RateLimitDecision reserved;
        final long reservedAt;
        /**
         * The batch this one followed, while it may hold tokens: a refresh is reserved before a batch is spent, and
         * requests spend what is left of the older one first, within its own age. Set once, at install.
         */
        volatile Batch previous;
        /** Whether a request paid from it has asked for the next batch (once per batch: a bucket may have none). */
        volatile boolean refreshed;

        Batch(long sentAt, long ageNanos, long tokens, RateLimitDecision reserved) {
            this.expiresAt = sentAt + ageNanos;
            this.granted = tokens;
            this.left = new AtomicLong(tokens);
            this.reserved = reserved;
            this.reservedAt = sentAt;
        }

        /** Takes {@code cost} tokens, or none when fewer are left (or the batch is retired). */
        boolean take(long cost) {
            long n;
            do {
                n = left.get();
                if (n < cost) {
                    return false;
                }
            } while (!left.compareAndSet(n, n - cost));
            return true;
        }

        /** Whether {@code cost} tokens are left, without taking them (a check before a request charged later). */
        boolean holds(long cost) {
            return left.get() >= cost;
        }

        /** Gives back {@code cost} tokens taken for a request that was then refused (lost if retired meanwhile). */
        void giveBack(long cost) {
            long n;
            do {
                n = left.get();
                if (n < 0) {
                    return;
                }
            } while (!left.compareAndSet(n, n + cost));
        }

        /** Ends the batch: no take succeeds from now on. @return the tokens it held */
        long retire() {
            return Math.max(0, left.getAndSet(RETIRED));
        }

        boolean liveAt(long now) {
            return now - expiresAt < 0;
        }
    }

    /** One key's budget on this node under one policy. */
    static final class Budget {
        final String key;
        final PolicyConfig policy;
        final long ageNanos;
        final long maxTokens;
        volatile Batch batch;
        volatile boolean retired;
        /**
         * {@link #RESERVING} while one thread reserves the next batch, else how many requests are giving tokens back
         * at this moment: the two exclude each other, so that nothing comes back beside a reservation in flight.
         */
        final AtomicInteger state = new AtomicInteger();
        /** Tokens asked by requests that the batch could not pay for, since the last reservation. */
        final LongAdder missed = new LongAdder();
        /** When the last reservation was sent; written, as the next three, only by the thread that reserves. */
        long lastReservation;
        boolean reservedBefore;
        /** The key's batch when the last reservation was sent, and what it held then. */
        Batch batchAtLastReservation;
        long leftAtLastReservation;

        Budget(String key, PolicyConfig policy) {
            this.key = key;
            this.policy = policy;
            this.ageNanos = policy.localBudgetMillis() * 1_000_000L;
            this.maxTokens = policy.localBudgetTokens();
        }

        /**
         * Installs a new batch after the current one, which keeps what it holds until its age and is spent first (the
         * one before it, spent first all along, is dropped).
         */
        void install(Batch next) {
            Batch last = batch;
            if (last != null) {
                Batch older = last.previous;
                last.previous = null;
                if (older != null) {
                    older.retire();
                }
                next.previous = last;
            }
            batch = next;
            if (retired) {
                retireAll(next, Long.MIN_VALUE, false);
            }
        }

        /**
         * Ends the budget: its batches and any batch installed later hold nothing.
         *
         * @return the live tokens they held
         */
        long retire(long now) {
            retired = true;
            return retireAll(batch, now, true);
        }

        private static long retireAll(Batch b, long now, boolean counted) {
            long live = 0;
            for (; b != null; b = b.previous) {
                long left = b.retire();
                live += counted && b.liveAt(now) ? left : 0;
            }
            return live;
        }

        boolean holdsNothingLive(long now) {
            if (state.get() == RESERVING) {
                return false;
            }
            for (Batch b = batch; b != null; b = b.previous) {
                if (b.liveAt(now) && b.left.get() > 0) {
                    return false;
                }
            }
            return true;
        }
    }

    /** What a budget made of one call: {@link Taken} or {@link Reservation} ({@link #claim}). */
    sealed interface Claim permits Taken, Reservation {
    }

    /**
     * Tokens a request took (or checked) from a budget, to keep if it is admitted or to give back.
     *
     * @param refresh the reservation of the next batch this request makes beside, or null
     */
    record Taken(Budget budget, Batch batch, long tokens, ChargeMode.Charge charge, RateLimitDecision decision,
                 Reservation refresh) implements Claim {

        /**
         * Puts the tokens back while their batch is still the key's and no reservation is in flight (none can start
         * meanwhile; a reservation is never waited for); else they are dropped.
         */
        void giveBack() {
            if (tokens <= 0) {
                return;
            }
            AtomicInteger state = budget.state;
            int s;
            do {
                s = state.get();
                if (s == RESERVING) {
                    return;
                }
            } while (!state.compareAndSet(s, s + 1));
            try {
                if (budget.batch == batch) {
                    batch.giveBack(tokens);
                }
            } finally {
                state.decrementAndGet();
            }
        }
    }

    /**
     * A reservation in flight, made by the one thread that reserves for the budget and ended by it with {@link #done}
     * or {@link #failed}. Not thread-safe: it stays with that thread.
     */
    static final class Reservation implements Claim {
        final Budget budget;
        final long reserve;
        final long sentAt;
        /** Used by the reserving thread alone. */
        private boolean ended;

        Reservation(Budget budget, long reserve, long sentAt) {
            this.budget = budget;
            this.reserve = reserve;
            this.sentAt = sentAt;
        }

        /**
         * Installs what Redis reserved and ends the reservation.
         *
         * @param decision the decision Redis gave the request
         * @return the decision as the request tells it: {@code remaining} counts the tokens the node now holds
         */
        RateLimitDecision done(BucketOutcome outcome, RateLimitDecision decision) {
            try {
                if (outcome.reserved() <= 0) {
                    return decision;
                }
                RateLimitDecision told = RateLimitDecision.of(decision.policy(), decision.allowed(),
                        Math.min(decision.limit(), decision.remaining() + outcome.reserved()), decision.limit(),
                        decision.windowSeconds(), 0, decision.resetMillis());
                budget.install(new Batch(sentAt, budget.ageNanos, outcome.reserved(), decision));
                return told;
            } finally {
                end();
            }
        }

        /** Ends a reservation whose decision failed (nothing was installed); nothing if it has ended. */
        void failed() {
            end();
        }

        private void end() {
            if (!ended) {
                ended = true;
                budget.state.set(0);
            }
        }
    }

    private final int maxKeys;
    private final LongSupplier nanoTime;
    private final Map<String, Budget> budgets = new ConcurrentHashMap<>();

    LocalBudgets(int maxKeys, LongSupplier nanoTime) {
        this.maxKeys = maxKeys;
        this.nanoTime = nanoTime;
    }

    /**
     * The budget of {@code key} under {@code policy}, made on first use; one made under other limits (a policy
     * redefined by a reload) is replaced, its tokens dropped.
     */
    Budget budget(String key, PolicyConfig policy) {
        while (true) {
            Budget budget = budgets.get(key);
            if (budget != null && sameLimits(budget.policy, policy)) {
                return budget;
            }
            Budget fresh = new Budget(key, policy);
            if (budget == null) {
                if (budgets.size() >= maxKeys) {
                    makeRoom();
                }
                if (budgets.putIfAbsent(key, fresh) == null) {
                    return fresh;
                }
            } else if (budgets.replace(key, budget, fresh)) {
                budget.retire(nanoTime.getAsLong());
                return fresh;
            }
        }
    }

    /** Whether a budget made under {@code made} holds tokens valid under {@code now}: same buckets, cost and age. */
    private static boolean sameLimits(PolicyConfig made, PolicyConfig now) {
        return made == now || (made.cost() == now.cost() && made.localBudgetMillis() == now.localBudgetMillis()
                && made.bandwidths().equals(now.bandwidths()));
    }

    /**
     * What the budget makes of one call of {@code cost} in {@code mode}:
     * <ul>
     *   <li>{@link Taken}: the node's live batch pays for it (a mode charged after the response only checks the
     *       tokens); with a {@link Taken#refresh() refresh} when that leaves the batch with less than
     *       1/{@value #LOW_WATER} of what it was given and this thread is to reserve the next one, so that it arrives
     *       before this one runs out (the call then also goes to the store, as a check that reserves and decides
     *       nothing);</li>
     *   <li>a {@link Reservation}: the batch cannot pay, and this thread reserves the next batch with the call, which
     *       the store decides;</li>
     *   <li>null: the batch cannot pay and another thread reserves (or tokens are coming back): the store decides the
     *       call alone.</li>
     * </ul>
     * A call the batch could not pay for is counted for the next batch's size.
     */
    Claim claim(Budget budget, long cost, ChargeMode mode) {
        long now = nanoTime.getAsLong();
        Batch batch = budget.batch;
        boolean live = batch != null && batch.liveAt(now);
        boolean charged = mode.charge() != ChargeMode.Charge.NEVER;
        Batch older = live ? batch.previous : null;
        if (older != null && older.liveAt(now) && (charged ? older.take(cost) : older.holds(cost))) {
            return new Taken(budget, older, charged ? cost : 0, mode.charge(), local(budget, older, now), null);
        }
        if (live && (charged ? batch.take(cost) : batch.holds(cost))) {
            Reservation refresh = null;
            if (!batch.refreshed && batch.left.get() < batch.granted / LOW_WATER && budget.state.get() == 0) {
                refresh = startReservation(budget, cost, now, true);
                batch.refreshed |= refresh != null;
            }
            return new Taken(budget, batch, charged ? cost : 0, mode.charge(), local(budget, batch, now), refresh);
        }
        budget.missed.add(cost);
        return startReservation(budget, cost, now, false);
    }

    /**
     * Makes this thread the one that reserves the budget's next batch, unless another is (or tokens are coming back).
     * The batch is what the node used since the last reservation (its calls the batch could not pay for, and what it
     * took from the batch that reservation made), scaled to half an age at the pace it used it; at most twice that
     * and what it still holds (so that a refresh grows the batch too), and never so much that it and the tokens still
     * held (which only decrease while it is in flight) exceed the bound.
     *
     * @param paid whether the call that reserves was paid from the batch (a refresh: it reserves its batch alone)
     * @return the reservation; null when another thread reserves, or when a refresh would reserve nothing
     */
    private Reservation startReservation(Budget budget, long cost, long now, boolean paid) {
        if (!budget.state.compareAndSet(0, RESERVING)) {
            return null;
        }
        Batch last = budget.batch;
        long held = 0;
        for (Batch b = last; b != null; b = b.previous) {
            held += b.liveAt(now) ? Math.max(0, b.left.get()) : 0;
        }
        // what the node used since the last reservation: the calls the batch could not pay for, what it took from
        // the batch it had then, and from the one that reservation brought
        long used = budget.missed.sumThenReset();
        Batch then = budget.batchAtLastReservation;
        if (then != null) {
            used += Math.max(0, budget.leftAtLastReservation - Math.max(0, then.left.get()));
        }
        if (last != null && last != then) {
            used += last.granted - Math.max(0, last.left.get());
        }
        long batch = cost;
        if (budget.reservedBefore) {
            long elapsed = Math.max(1, now - budget.lastReservation);
            double wanted = Math.ceil(used * (budget.ageNanos / 2.0) / elapsed);
            batch = Math.max(cost, (long) Math.min(Math.min(wanted, 2.0 * used + held), budget.maxTokens));
        }
        // A call the store decides takes its own cost beside the reserve; a refresh was paid already. A refresh never
        // finds the node holding its bound: the batch it was paid from lost that token, and the older one only shrinks.
        long reserve = Math.max(0, Math.min(paid ? batch : batch - cost, budget.maxTokens - (paid ? 0 : cost) - held));
        budget.lastReservation = now;
        budget.reservedBefore = true;
        budget.batchAtLastReservation = last;
        budget.leftAtLastReservation = last == null ? 0 : Math.max(0, last.left.get());
        return new Reservation(budget, reserve, now);
    }

    /**
     * A request admitted from the budget: {@code remaining} counts the tokens the node still holds and what the bucket
     * held after the reservation ({@code limit} at most); it waits for nothing while a token is left, and the times
     * Redis answered count down.
     */
    private static RateLimitDecision local(Budget budget, Batch batch, long now) {
        RateLimitDecision r = batch.reserved;
        long elapsedMillis = (now - batch.reservedAt) / 1_000_000;
        long remaining = Math.min(r.limit(), Math.max(0, batch.left.get()) + r.remaining());
        long retry = remaining > 0 ? 0 : Math.max(0, r.retryAfterMillis() - elapsedMillis);
        return RateLimitDecision.of(budget.policy.name(), true, remaining, r.limit(), r.windowSeconds(), retry,
                Math.max(0, r.resetMillis() - elapsedMillis));
    }

    /**
     * Removes the budgets of the named policies (every budget when {@code policies} is null) and returns the live
     * tokens each held, one {@code refund} per bucket.
     *
     * @param refund gives a bucket's unspent tokens back (a store call); a failure loses them
     */
    void returnAll(Set<String> policies, Refund refund) {
        long now = nanoTime.getAsLong();
        List<Budget> removed = new ArrayList<>();
        for (Iterator<Budget> it = budgets.values().iterator(); it.hasNext();) {
            Budget budget = it.next();
            if (policies == null || policies.contains(budget.policy.name())) {
                it.remove();
                removed.add(budget);
            }
        }
        for (Budget budget : removed) {
            long left = budget.retire(now);
            if (left > 0) {
                refund.give(budget.key, budget.policy, left);
            }
        }
    }

    /** Gives unspent tokens of a budget back to its bucket. */
    @FunctionalInterface
    interface Refund {
        void give(String bucketKey, PolicyConfig policy, long tokens);
    }

    private void makeRoom() {
        long now = nanoTime.getAsLong();
        for (Iterator<Budget> it = budgets.values().iterator(); it.hasNext();) {
            Budget budget = it.next();
            if (budget.holdsNothingLive(now)) {
                budget.retire(now);
                it.remove();
            }
        }
        int excess = budgets.size() - (maxKeys - Math.max(1, maxKeys / 10));
        for (Iterator<Budget> it = budgets.values().iterator(); excess > 0 && it.hasNext(); excess--) {
            it.next().retire(now);
            it.remove();
        }
    }

    /** Keys with a budget now (for tests). */
    int size() {
        return budgets.size();
    }
}
