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
 * kind ({@value #BUCKET}, {@value #BUDGET} or {@value #PERMITS}), whether it decides, and when it is charged
 * ({@link ChargeMode.Charge#wire()}). Stateless.
 */
final class GcraProtocol {

    /** The kind of a rate policy: its buckets, one per bandwidth. */
    static final String BUCKET = "bucket";
    /** The kind of a concurrency limit: its permit set. */
    static final String PERMITS = "permits";
    /**
     * The kind of a rate policy that reserves tokens for the node's local budget ({@link BucketRequest#reserve()} > 0):
     * a bucket's arguments with the reserve after the cost, and a sixth integer in its reply.
     */
    static final String BUDGET = "budget";

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
    /** Offset of {@link BucketOutcome#reserved()} in a {@value #BUDGET}'s part of the reply, its sixth integer. */
    static final int RESERVED = 5;

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
     * bucket's cost, bandwidth count and per bandwidth its interval in its units, units per microsecond and capacity
     * (a budget's with its reserve after the cost), or a permit set's permits, lease in milliseconds and permit id.
     */
    static List<String> args(List<BucketRequest> requests) {
        int size = 1;
        for (BucketRequest request : requests) {
            size += request.permit() != null ? 6 : 5 + 3 * request.limits().size() + (request.reserve() > 0 ? 1 : 0);
        }
        List<String> args = new ArrayList<>(size);
        args.add(number(requests.size()));
        for (BucketRequest request : requests) {
            args.add(request.permit() != null ? PERMITS : request.reserve() > 0 ? BUDGET : BUCKET);
            args.add(request.mode().decides() ? "1" : "0");
            args.add(request.mode().charge().wire());
            if (request.permit() != null) {
                args.add(number(request.permit().permits()));
                args.add(Long.toString(request.permit().leaseMillis()));
                args.add(request.permit().id());
                continue;
            }
            args.add(number(request.cost()));
            if (request.reserve() > 0) {
                args.add(number(request.reserve()));
            }
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
     * Reads the reply to {@code count} requests: {@value #FIELDS} integers per request (a budget's six), request after
     * request, {@code allowed} 1 or 0, {@code tightest} a bandwidth's index, {@code reserved} from 0 to the reserve
     * asked, and nothing reserved for a request the policy refused.
     *
     * @throws StoreUnavailableException naming the script and where it came from, when the reply has another shape
     *                                   (a replaced script that answers differently)
     */
    static List<BucketOutcome> outcomes(Object reply, List<BucketRequest> requests, LuaScript script) {
        int count = requests.size();
        int size = count * FIELDS;
        for (BucketRequest request : requests) {
            size += request.reserve() > 0 ? 1 : 0;
        }
        long[] values = ScriptReplies.integers(reply, size, script);
        List<BucketOutcome> outcomes = new ArrayList<>(count);
        int at = 0;
        for (int i = 0; i < count; i++) {
            BucketRequest request = requests.get(i);
            long allowed = values[at + ALLOWED];
            long tightest = values[at + TIGHTEST];
            long reserved = request.reserve() > 0 ? values[at + RESERVED] : 0;
            int bandwidths = Math.max(1, request.limits().size());
            if ((allowed != 0 && allowed != 1) || tightest < 0 || tightest >= bandwidths || reserved < 0
                    || reserved > request.reserve() || (reserved > 0 && allowed == 0)) {
                throw ScriptReplies.misshapen(script, "policy " + i + " answered allowed " + allowed + ", tightest " + tightest
                        + " of " + bandwidths + " bandwidth(s)" + (request.reserve() > 0 ? ", reserved " + reserved
                        + " of " + request.reserve() : "") + ": " + reply);
            }
            outcomes.add(new BucketOutcome(allowed == 1, values[at + REMAINING], (int) tightest, values[at + WAIT],
                    values[at + RESET], reserved));
            at += request.reserve() > 0 ? FIELDS + 1 : FIELDS;
        }
        return outcomes;
    }
}
