package dev.sluice.internal.limit;

import dev.sluice.StoreUnavailableException;
import dev.sluice.internal.lease.Watchdog;
import dev.sluice.internal.limit.RateLimitEngine.LimitCall;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import java.util.function.LongUnaryOperator;
import java.util.function.Supplier;

/**
 * The permits one request in flight holds under concurrency limits ({@code sluice.limit.<policy>.concurrency}):
 * the watchdog renews each every third of its lease while the request runs, and {@link #release()} returns
 * them all in one store call when its response is complete (in the background, retried, when the store cannot be
 * asked then). Should the node die first, the renewals stop with
 * it and the permits run out within their lease; renewals also stop after {@link #longestHoldMillis(long)}. Thread-safe; {@link #release()} acts once.
 */
public final class HeldPermits {

    private static final System.Logger LOG = System.getLogger("dev.sluice");

    /** No permits: releasing does nothing. */
    public static final HeldPermits NONE = new HeldPermits(null, List.of(), null, List.of(), 0, null, System::nanoTime);

    private final RateLimitEngine engine;
    private final List<String> keys;
    private final String permitId;
    private final List<Runnable> renewals;
    private final AtomicBoolean released = new AtomicBoolean();

    private final long longestLeaseMillis;
    private final Watchdog watchdog;
    private final LongSupplier nanos;

    private HeldPermits(RateLimitEngine engine, List<String> keys, String permitId, List<Runnable> renewals,
                        long longestLeaseMillis, Watchdog watchdog, LongSupplier nanos) {
        this.engine = engine;
        this.keys = keys;
        this.permitId = permitId;
        this.renewals = renewals;
        this.longestLeaseMillis = longestLeaseMillis;
        this.watchdog = watchdog;
        this.nanos = nanos;
    }

    static HeldPermits hold(RateLimitEngine engine, List<LimitCall> calls, Supplier<Watchdog> watchdog) {
        return hold(engine, calls, watchdog, HeldPermits::longestHoldMillis, System::nanoTime);
    }

    /**
     * @param longestHold the longest renewal of a permit, in ms, given its lease in ms
     * @param nanos       the monotonic clock the longest hold is measured on, in ns ({@code System::nanoTime}
     *                    outside tests; a test gives the watchdog the same clock)
     */
    static HeldPermits hold(RateLimitEngine engine, List<LimitCall> calls, Supplier<Watchdog> watchdog,
                            LongUnaryOperator longestHold, LongSupplier nanos) {
        if (calls.isEmpty()) {
            return NONE;
        }
        String permitId = calls.get(0).permitId();
        List<String> keys = new ArrayList<>(calls.size());
        List<Runnable> renewals = new ArrayList<>(calls.size());
        Watchdog renewing = watchdog.get();
        long longestLease = 0;
        for (LimitCall call : calls) {
            if (!permitId.equals(call.permitId())) {
                throw new IllegalArgumentException("permits of one request under two ids: " + calls);
            }
            String key = engine.permitKey(call.policy().name(), call.rawKey());
            keys.add(key);
            RateLimitStore store = engine.store();
            long lease = call.policy().concurrencyLeaseMillis();
            longestLease = Math.max(longestLease, lease);
            long longestMillis = longestHold.applyAsLong(lease);
            long longest = TimeUnit.MILLISECONDS.toNanos(longestMillis);
            long taken = nanos.getAsLong();
            AtomicReference<Runnable> stop = new AtomicReference<>();
            String what = "a permit of concurrency limit '" + call.policy().name() + "'";
            Runnable cancel = renewing.keep(lease, millis -> {
                if (nanos.getAsLong() - taken > longest) {
                    // the response never came, or the request runs longer than any request should: let the
                    // permit run out rather than block its key until the node stops
                    LOG.log(Level.WARNING, "Sluice: " + what + " was held for " + longestMillis
                            + " ms without its response completing; it is no longer renewed and runs out within "
                            + lease + " ms");
                    stop.get().run();
                    return true;
                }
                return store.renew(key, permitId, millis);
            }, what);
            stop.set(cancel);
            renewals.add(cancel);
        }
        return new HeldPermits(engine, List.copyOf(keys), permitId, List.copyOf(renewals), longestLease, renewing,
                nanos);
    }

    /**
     * How long a request's permit is renewed at most: ten leases, and at least ten minutes. A request whose end
     * Sluice never hears of (a JAX-RS exception no mapper maps, outside a servlet container) then frees its key
     * within this time and one lease, instead of holding it until the node stops.
     */
    static long longestHoldMillis(long leaseMillis) {
        return Math.max(LONGEST_HOLD_FLOOR_MILLIS, 10 * leaseMillis);
    }

    /** The floor of {@link #longestHoldMillis(long)}. */
    static final long LONGEST_HOLD_FLOOR_MILLIS = TimeUnit.MINUTES.toMillis(10);

    /** The permit sets this request holds a permit in. */
    public List<String> keys() {
        return keys;
    }

    /**
     * Stops renewing and returns the permits in one store call; the first call only. When the store cannot be
     * asked (it failed, or the open breaker skips it), the return is retried in the background until Redis
     * confirms it or the permits' lease has run out ({@link PermitReturns}).
     */
    public void release() {
        if (keys.isEmpty() || !released.compareAndSet(false, true)) {
            return;
        }
        renewals.forEach(Runnable::run);
        try {
            engine.release(keys, permitId);
        } catch (StoreUnavailableException e) {
            LOG.log(Level.DEBUG, "Sluice: could not return permits of " + keys.size() + " concurrency limit(s) now;"
                    + " retrying in the background: " + e.getMessage());
            PermitReturns.inBackground(watchdog, nanos, longestLeaseMillis, () -> engine.release(keys, permitId),
                    "the return of " + keys.size() + " permit(s) of concurrency limits");
        }
    }
}
