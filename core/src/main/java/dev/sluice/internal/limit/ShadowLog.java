package dev.sluice.internal.limit;

import dev.sluice.internal.config.KeySpec;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.metrics.RateLimitEvents;

import java.lang.System.Logger.Level;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The WARNING lines about shadowed policies' would-be refusals: at most one line per policy per
 * {@linkplain #INTERVAL_NANOS minute}, however many requests it would refuse, so that a shadowed limit set far
 * too low cannot flood the log. Each line carries the number of would-be refusals since the policy's previous
 * line (the first line is written at the first one) and one example key in the form {@link LoggedKeys} gives
 * it: addresses, principals and paths readable, values taken from headers, parameters or beans only as a tag. Refusals after a policy's last line are
 * told by its next line, whenever that comes; the metric {@code sluice.ratelimit.would.deny} has them at once.
 *
 * <p>The engine tells it every outcome ({@link RateLimitEvents}); it writes about {@link RateLimitEvents.Outcome#WOULD_DENY}
 * alone. Thread-safe. Holds one small entry per shadowed policy that refused something (names come from the
 * configuration, so they are bounded).
 */
final class ShadowLog implements RateLimitEvents {

    /** Shortest time between two lines about one policy. */
    static final long INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

    private static final System.Logger LOG = System.getLogger("dev.sluice");

    private final LongSupplier nanoTime;
    private final Map<String, Policy> policies = new ConcurrentHashMap<>();

    /** @param nanoTime a monotonic clock ({@code System::nanoTime} in production) */
    ShadowLog(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    @Override
    public void on(PolicyConfig policy, String rawKey, Outcome outcome) {
        if (outcome == Outcome.WOULD_DENY) {
            wouldDeny(policy.name(), policy.key().type(), rawKey);
        }
    }

    /**
     * Counts one would-be refusal of {@code policy} for {@code rawKey}, and writes a line if one is due.
     *
     * @param keyType the policy's key type, which tells what {@code rawKey} was taken from
     */
    void wouldDeny(String policy, KeySpec.Type keyType, String rawKey) {
        Policy state = policies.computeIfAbsent(policy, name -> new Policy());
        long count;
        synchronized (state) {
            state.pending++;
            long now = nanoTime.getAsLong();
            if (state.logged && now - state.lastLine < INTERVAL_NANOS) {
                return;
            }
            state.logged = true;
            state.lastLine = now;
            count = state.pending;
            state.pending = 0;
        }
        LOG.log(Level.WARNING, "Sluice: policy " + policy + " is in shadow mode and would have refused " + count
                + (count == 1 ? " request" : " requests") + " since its last such line (e.g. key "
                + LoggedKeys.of(keyType, rawKey) + "); they were not refused by it. At most one such line per policy per"
                + " minute; every one is counted in sluice.ratelimit.would.deny (JMX: WouldDeny)");
    }

    /** One policy's count since its last line. Guarded by itself. */
    private static final class Policy {
        long pending;
        long lastLine;
        boolean logged;
    }
}
