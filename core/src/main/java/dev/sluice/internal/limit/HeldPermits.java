package dev.sluice.internal.limit;

import dev.sluice.StoreUnavailableException;
import dev.sluice.internal.lock.Watchdog;
import dev.sluice.internal.limit.RateLimitEngine.LimitCall;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * The permits one request in flight holds under concurrency limits ({@code sluice.limit.<policy>.concurrency}):
 * the watchdog renews each every third of its lease while the request runs, and {@link #release()} returns
 * them all in one store call when its response is complete. Should the node die first, the renewals stop with
 * it and the permits run out within their lease. Thread-safe; {@link #release()} acts once.
 */
public final class HeldPermits {

    private static final System.Logger LOG = System.getLogger("dev.sluice");

    /** No permits: releasing does nothing. */
    public static final HeldPermits NONE = new HeldPermits(null, List.of(), null, List.of());

    private final RateLimitEngine engine;
    private final List<String> keys;
    private final String permitId;
    private final List<Runnable> renewals;
    private final AtomicBoolean released = new AtomicBoolean();

    private HeldPermits(RateLimitEngine engine, List<String> keys, String permitId, List<Runnable> renewals) {
        this.engine = engine;
        this.keys = keys;
        this.permitId = permitId;
        this.renewals = renewals;
    }

    static HeldPermits hold(RateLimitEngine engine, List<LimitCall> calls, Supplier<Watchdog> watchdog) {
        if (calls.isEmpty()) {
            return NONE;
        }
        String permitId = calls.get(0).permitId();
        List<String> keys = new ArrayList<>(calls.size());
        List<Runnable> renewals = new ArrayList<>(calls.size());
        Watchdog renewing = watchdog.get();
        for (LimitCall call : calls) {
            if (!permitId.equals(call.permitId())) {
                throw new IllegalArgumentException("permits of one request under two ids: " + calls);
            }
            String key = engine.permitKey(call.policy().name(), call.rawKey());
            keys.add(key);
            RateLimitStore store = engine.store();
            renewals.add(renewing.keep(call.policy().concurrencyLeaseMillis(),
                    millis -> store.renew(key, permitId, millis),
                    "a permit of concurrency limit '" + call.policy().name() + "'"));
        }
        return new HeldPermits(engine, List.copyOf(keys), permitId, List.copyOf(renewals));
    }

    /** The permit sets this request holds a permit in. */
    public List<String> keys() {
        return keys;
    }

    /**
     * Stops renewing and returns the permits in one store call; the first call only. When the store cannot be
     * asked, the permits run out with their lease.
     */
    public void release() {
        if (keys.isEmpty() || !released.compareAndSet(false, true)) {
            return;
        }
        renewals.forEach(Runnable::run);
        try {
            engine.release(keys, permitId);
        } catch (StoreUnavailableException e) {
            LOG.log(Level.DEBUG, "Sluice: could not return permits of " + keys.size() + " concurrency limit(s); they"
                    + " run out with their lease: " + e.getMessage());
        }
    }
}
