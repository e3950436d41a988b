package dev.sluice.internal.limit;

import dev.sluice.internal.lease.PermitSet;

import java.util.ArrayList;
import java.util.List;

/**
 * The GCRA decision of {@code gcra.lua}, in Java, for the in-process store. Kept step for step equivalent to
 * the script (the differential test feeds both the same requests); read the script's header for the model.
 * Briefly: a bucket's state is its theoretical arrival time (TAT), at which it is full again, kept as whole
 * microseconds plus a remainder in the bucket's own unit ({@code 1 / unitsPerMicro} µs, in which the interval
 * between two tokens is whole), so that every rate is counted exactly; durations are counted in that unit.
 * Each policy takes part in the decision as its {@link ChargeMode} says.
 */
final class Gcra {

    /** A bucket's TAT: {@code micros + remainder / unitsPerMicro} µs on the store clock. */
    record Tat(long micros, long remainder) {
    }

    /** Where the decision reads and writes buckets. */
    interface Buckets {
        /** The TAT of {@code key}, or {@code null} when it is absent or expired. */
        Tat read(String key);

        /** Stores {@code tat}; it expires at {@code tat}, {@code now} being the decision's clock. */
        void write(String key, Tat tat, long now);

        /**
         * The permit set of a concurrency limit, leases ending at milliseconds of the store clock; the live set,
         * which the decision changes in place (an absent set reads as empty, and is kept once written to).
         */
        PermitSet permits(String key);
    }

    /** One bandwidth during a decision; times in its units, relative to now. */
    private static final class Bucket {
        final String key;
        final long interval;
        final long units;
        final long span;
        final long ahead;
        final long moved;
        final boolean clamped;

        Bucket(String key, BucketRequest.Limit limit, Tat tat, long now, long cost, boolean refund) {
            this.key = key;
            this.interval = limit.intervalUnits();
            this.units = limit.unitsPerMicro();
            this.span = limit.capacity() * interval;
            long ahead = 0;
            boolean clamped = false;
            if (tat != null) {
                long micros = tat.micros() - now;
                if (micros < 0) {
                    ahead = 0;
                } else if (micros > Math.floorDiv(span, units) + 1) {
                    // More than a full bucket ahead (the clock stepped back, or the limit shrank): empty, not emptier.
                    ahead = span + 1;
                } else {
                    ahead = micros * units + Math.min(tat.remainder(), units - 1);
                }
                if (ahead > span) {
                    ahead = span;
                    clamped = true;
                }
            }
            this.ahead = ahead;
            this.moved = refund ? Math.max(0, ahead - cost * interval) : ahead + cost * interval;
            this.clamped = clamped;
        }
    }

    private Gcra() {
    }

    /** {@code ceil(a / b)} for {@code a >= 0}, {@code b > 0}. */
    private static long ceilDiv(long a, long b) {
        return -Math.floorDiv(-a, b);
    }

    /**
     * @param now     the store clock, microseconds
     * @param buckets where bucket states live
     */
    static List<BucketOutcome> decide(long now, List<BucketRequest> requests, Buckets buckets) {
        int n = requests.size();
        Bucket[][] state = new Bucket[n][];
        boolean[] ok = new boolean[n];
        boolean[] never = new boolean[n];
        long[] waits = new long[n];
        boolean allOk = true;
        long nowMillis = Math.floorDiv(now, 1000L);
        for (int p = 0; p < n; p++) {
            BucketRequest request = requests.get(p);
            long cost = request.cost();
            if (request.permit() != null) {
                PermitSet set = buckets.permits(request.key());
                // a permit under this request's id is its own (a retried decision), never counted against it
                ok[p] = set.admits(request.permit().id(), request.permit().permits(), nowMillis);
                if (!ok[p]) {
                    waits[p] = (set.earliest() - nowMillis) * 1000;
                }
                state[p] = new Bucket[0];
                allOk &= ok[p] || !request.mode().decides();
                continue;
            }
            List<BucketRequest.Limit> limits = request.limits();
            state[p] = new Bucket[limits.size()];
            ok[p] = true;
            for (int b = 0; b < limits.size(); b++) {
                BucketRequest.Limit limit = limits.get(b);
                String key = request.key(b);
                Bucket bucket = new Bucket(key, limit, buckets.read(key), now, cost,
                        request.mode().charge() == ChargeMode.Charge.REFUND);
                state[p][b] = bucket;
                if (cost > limit.capacity()) {
                    ok[p] = false;
                    never[p] = true;
                } else if (bucket.moved > bucket.span) {
                    ok[p] = false;
                    waits[p] = Math.max(waits[p], ceilDiv(bucket.moved - bucket.span, bucket.units));
                }
            }
            ChargeMode.Charge unconditional = request.mode().charge();
            if (unconditional == ChargeMode.Charge.ALWAYS || unconditional == ChargeMode.Charge.REFUND) {
                ok[p] = true;
                never[p] = false;
            }
            if (request.mode().decides()) {
                allOk &= ok[p];
            }
        }

        List<BucketOutcome> outcomes = new ArrayList<>(n);
        for (int p = 0; p < n; p++) {
            BucketRequest request = requests.get(p);
            if (request.permit() != null) {
                boolean taken = charged(request.mode().charge(), allOk, ok[p]);
                outcomes.add(permitOutcome(request, buckets.permits(request.key()), ok[p], waits[p], taken,
                        nowMillis));
                continue;
            }
            long remaining = Long.MAX_VALUE;
            int tightest = 0;
            long reset = 0;
            long nextToken = 0;
            ChargeMode.Charge charge = requests.get(p).mode().charge();
            boolean charged = charged(charge, allOk, ok[p]);
            // A local budget's reservation: what every bandwidth holds after the policy's own charge, up to the reserve.
            long[] after = new long[state[p].length];
            long reserved = allOk && ok[p] ? request.reserve() : 0;
            for (int b = 0; b < state[p].length; b++) {
                Bucket bucket = state[p][b];
                after[b] = !charged ? bucket.ahead
                        : charge == ChargeMode.Charge.ALWAYS ? Math.min(bucket.moved, bucket.span) : bucket.moved;
                if (reserved > 0) {
                    reserved = Math.min(reserved, Math.floorDiv(bucket.span - after[b], bucket.interval));
                }
            }
            for (int b = 0; b < state[p].length; b++) {
                Bucket bucket = state[p][b];
                long ahead = after[b] + reserved * bucket.interval;
                if (charged || bucket.clamped || reserved > 0) {
                    // a refund that left the bucket full writes a TAT of now, which has expired
                    buckets.write(bucket.key, new Tat(now + Math.floorDiv(ahead, bucket.units),
                            Math.floorMod(ahead, bucket.units)), now);
                }
                long left = Math.floorDiv(bucket.span - ahead, bucket.interval);
                if (left < remaining) {
                    remaining = left;
                    tightest = b;
                    reset = ceilDiv(ahead, bucket.units);
                }
                nextToken = Math.max(nextToken, ceilDiv(Math.max(0, ahead + bucket.interval - bucket.span), bucket.units));
            }
            long wait = never[p] ? -1 : !ok[p] ? waits[p] : nextToken;
            outcomes.add(new BucketOutcome(ok[p], remaining, tightest, wait, reset, reserved));
        }
        return outcomes;
    }

    /** Whether a policy is charged, as {@code charged} in the script. */
    private static boolean charged(ChargeMode.Charge charge, boolean allOk, boolean ok) {
        return switch (charge) {
            case NEVER -> false;
            case IF_ALL_ADMIT -> allOk && ok;
            case IF_IT_ADMITS -> ok;
            case ALWAYS, REFUND -> true;
        };
    }

    /**
     * A concurrency limit's reply, as {@code permit_reply} in the script; takes the permit when {@code taken}, and
     * removes one held under the request's id already (its own, from a retried decision) when not.
     */
    private static BucketOutcome permitOutcome(BucketRequest request, PermitSet set, boolean ok,
                                               long wait, boolean taken, long nowMillis) {
        BucketRequest.Permit permit = request.permit();
        if (taken) {
            set.grant(permit.id(), nowMillis + permit.leaseMillis());
        } else {
            set.remove(permit.id(), nowMillis);
        }
        long reset = 0;
        if (!set.isEmpty()) {
            long earliest = set.earliest();
            long latest = set.latest();
            if (ok && set.size() >= permit.permits()) {
                wait = (earliest - nowMillis) * 1000;
            }
            reset = (latest - nowMillis) * 1000;
        }
        return new BucketOutcome(ok, Math.max(0, permit.permits() - set.size()), 0, wait, reset);
    }
}
