package dev.sluice.internal.limit;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * The GCRA decision of {@code gcra.lua}, in Java, for the in-process store. Kept line for line equivalent
 * to the script (the differential test feeds both the same requests): integer microseconds, the state of
 * a bucket is its theoretical arrival time (TAT), at which it is full again.
 */
final class Gcra {

    /** Where the decision wants to write a bucket's new TAT. */
    interface Writer {
        void write(String key, long tat, long now);
    }

    private Gcra() {
    }

    /**
     * @param now  the store clock, microseconds
     * @param read current TAT of a key, or {@code Long.MIN_VALUE} when absent or expired
     */
    static List<BucketOutcome> decide(long now, List<BucketRequest> requests, ToLongFunction<String> read, Writer writer) {
        int n = requests.size();
        long[][] tats = new long[n][];
        boolean[] ok = new boolean[n];
        boolean[] never = new boolean[n];
        long[] waits = new long[n];
        boolean allOk = true;
        for (int p = 0; p < n; p++) {
            BucketRequest request = requests.get(p);
            long cost = request.cost();
            List<BucketRequest.Limit> limits = request.limits();
            tats[p] = new long[limits.size()];
            ok[p] = true;
            for (int b = 0; b < limits.size(); b++) {
                BucketRequest.Limit limit = limits.get(b);
                long tat = Math.max(now, read.applyAsLong(request.key(b)));
                tats[p][b] = tat;
                long span = limit.capacity() * limit.intervalMicros();
                long newTat = tat + cost * limit.intervalMicros();
                if (cost > limit.capacity()) {
                    ok[p] = false;
                    never[p] = true;
                } else if (newTat - now > span) {
                    ok[p] = false;
                    waits[p] = Math.max(waits[p], newTat - span - now);
                }
            }
            allOk &= ok[p];
        }

        List<BucketOutcome> outcomes = new ArrayList<>(n);
        for (int p = 0; p < n; p++) {
            BucketRequest request = requests.get(p);
            List<BucketRequest.Limit> limits = request.limits();
            long remaining = Long.MAX_VALUE;
            int tightest = 0;
            long reset = 0;
            long nextToken = 0;
            for (int b = 0; b < limits.size(); b++) {
                BucketRequest.Limit limit = limits.get(b);
                long span = limit.capacity() * limit.intervalMicros();
                long state = allOk ? tats[p][b] + request.cost() * limit.intervalMicros() : tats[p][b];
                if (allOk) {
                    writer.write(request.key(b), state, now);
                }
                long left = Math.floorDiv(span - (state - now), limit.intervalMicros());
                if (left < remaining) {
                    remaining = left;
                    tightest = b;
                    reset = state - now;
                    nextToken = state + limit.intervalMicros() - span - now;
                }
            }
            long wait = never[p] ? -1 : !ok[p] ? waits[p] : Math.max(0, nextToken);
            outcomes.add(new BucketOutcome(ok[p], remaining, tightest, wait, reset));
        }
        return outcomes;
    }
}
