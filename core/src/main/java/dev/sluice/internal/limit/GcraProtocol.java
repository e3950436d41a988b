package dev.sluice.internal.limit;

import dev.sluice.StoreUnavailableException;
import dev.sluice.internal.redis.LuaScript;
import dev.sluice.internal.redis.ScriptReplies;

import java.util.ArrayList;
import java.util.List;

/**
 * The wire format of {@code gcra.lua}, on the Java side: the one writer of its {@code KEYS} and {@code ARGV} and
 * the one validated reader of its reply. The script's header documents the same format, which is public, since an
 * operator may replace the script ({@code sluice.script.gcra}). Per policy the arguments say what they mean: its
 * kind ({@value #BUCKET} or {@value #PERMITS}), whether it decides, and when it is charged
 * ({@link ChargeMode.Charge#wire()}). Stateless.
 */
final class GcraProtocol {

    /** The kind of a rate policy: its buckets, one per bandwidth. */
    static final String BUCKET = "bucket";
    /** The kind of a concurrency limit: its permit set. */
    static final String PERMITS = "permits";

    /** Offset of {@link BucketOutcome#allowed()} in a policy's part of the reply: 1 or 0. */
    static final int ALLOWED = 0;
    /** Offset of {@link BucketOutcome#remaining()}. */
    static final int REMAINING = 1;
    /** Offset of {@link BucketOutcome#tightest()}, 0-based. */
    static final int TIGHTEST = 2;
    /** Offset of {@link BucketOutcome#waitMicros()}. */
    static final int WAIT = 3;
    /** Offset of {@link BucketOutcome#resetMicros()}. */
    static final int RESET = 4;
    /** Integers per policy in the reply. */
    static final int FIELDS = 5;

    private GcraProtocol() {
    }

    /** {@code KEYS}: per request its permit set, or one key per bandwidth. */
    static List<String> keys(List<BucketRequest> requests) {
        int size = 0;
        for (BucketRequest request : requests) {
            size += (request.permit() != null ? 1 : 0) + request.limits().size();
        }
        List<String> keys = new ArrayList<>(size);
        for (BucketRequest request : requests) {
            if (request.permit() != null) {
                keys.add(request.key());
            }
            for (int b = 0; b < request.limits().size(); b++) {
                keys.add(request.key(b));
            }
        }
        return keys;
    }

    /**
     * {@code ARGV}: the count, then per request its kind, decides ({@code 1} or {@code 0}) and charge, then a
     * bucket's cost, bandwidth count and per bandwidth its interval in its units, units per microsecond and capacity,
     * or a permit set's permits, lease in milliseconds and permit id.
     */
    static List<String> args(List<BucketRequest> requests) {
        int size = 1;
        for (BucketRequest request : requests) {
            size += request.permit() != null ? 6 : 5 + 3 * request.limits().size();
        }
        List<String> args = new ArrayList<>(size);
        args.add(number(requests.size()));
        for (BucketRequest request : requests) {
            args.add(request.permit() != null ? PERMITS : BUCKET);
            args.add(request.mode().decides() ? "1" : "0");
            args.add(request.mode().charge().wire());
            if (request.permit() != null) {
                args.add(number(request.permit().permits()));
                args.add(Long.toString(request.permit().leaseMillis()));
                args.add(request.permit().id());
                continue;
            }
            args.add(number(request.cost()));
            args.add(number(request.limits().size()));
            for (BucketRequest.Limit limit : request.limits()) {
                args.add(number(limit.intervalUnits()));
                args.add(number(limit.unitsPerMicro()));
                args.add(number(limit.capacity()));
            }
        }
        return args;
    }

    /** The decimal strings of the counts most arguments are (a cost of 1, one bandwidth, 1 unit per µs). */
    private static final String[] SMALL_NUMBERS = new String[256];

    static {
        for (int i = 0; i < SMALL_NUMBERS.length; i++) {
            SMALL_NUMBERS[i] = Integer.toString(i);
        }
    }

    /** {@code value} in decimal, as {@link Long#toString(long)} writes it, without a new string for a small one. */
    static String number(long value) {
        return value >= 0 && value < SMALL_NUMBERS.length ? SMALL_NUMBERS[(int) value] : Long.toString(value);
    }

    /**
     * Reads the reply to {@code count} requests: {@value #FIELDS} integers per request, request after request,
     * {@code allowed} 1 or 0, {@code tightest} a bandwidth's index.
     *
     * @throws StoreUnavailableException naming the script and where it came from, when the reply has another shape
     *                                   (a replaced script that answers differently)
     */
    static List<BucketOutcome> outcomes(Object reply, List<BucketRequest> requests, LuaScript script) {
        int count = requests.size();
        long[] values = ScriptReplies.integers(reply, count * FIELDS, script);
        List<BucketOutcome> outcomes = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int at = i * FIELDS;
            long allowed = values[at + ALLOWED];
            long tightest = values[at + TIGHTEST];
            int bandwidths = Math.max(1, requests.get(i).limits().size());
            if ((allowed != 0 && allowed != 1) || tightest < 0 || tightest >= bandwidths) {
                throw ScriptReplies.misshapen(script, "policy " + i + " answered allowed " + allowed + ", tightest " + tightest
                        + " of " + bandwidths + " bandwidth(s): " + reply);
            }
            outcomes.add(new BucketOutcome(allowed == 1, values[at + REMAINING], (int) tightest, values[at + WAIT],
                    values[at + RESET]));
        }
        return outcomes;
    }
}
