package dev.sluice.internal.redis;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

/**
 * Keeps a dead Redis from adding a full timeout to every request: after {@code threshold} consecutive
 * failures the breaker opens and calls skip the store for {@code coolDown}; then exactly one call is let
 * through as a probe. A successful probe closes the breaker, a failed one opens it for another cool-down.
 *
 * <p>Logs one WARNING when it opens and one when it closes again (operators alert on the first and look
 * for the second in the same place); failed probes and individual failures are not logged, so a long
 * outage costs two lines, not one per request.
 *
 * <p>Thread-safe and lock-free: the closed state, the hot path, is one volatile read.
 */
public final class CircuitBreaker {

    /** Consecutive failures that open the breaker. */
    public static final int DEFAULT_THRESHOLD = 3;

    /**
     * How long an open breaker skips the store. Short, so that limiting resumes within about a second
     * of Redis coming back.
     */
    public static final Duration DEFAULT_COOL_DOWN = Duration.ofSeconds(1);

    private static final System.Logger LOG = System.getLogger("dev.sluice");

    private enum Phase { CLOSED, OPEN, PROBING }

    private record State(Phase phase, int failures, long openUntilNanos) {
        static final State CLOSED = new State(Phase.CLOSED, 0, 0);
    }

    private final int threshold;
    private final long coolDownNanos;
    private final LongSupplier nanoClock;
    private final String target;
    private final AtomicReference<State> state = new AtomicReference<>(State.CLOSED);

    /**
     * @param target    what the breaker guards, for the log lines (never contains credentials)
     * @param nanoClock monotonic clock, {@code System::nanoTime} outside tests
     */
    public CircuitBreaker(int threshold, Duration coolDown, LongSupplier nanoClock, String target) {
        if (threshold < 1 || coolDown.isNegative()) {
            throw new IllegalArgumentException("threshold " + threshold + ", cool-down " + coolDown);
        }
        this.threshold = threshold;
        this.coolDownNanos = coolDown.toNanos();
        this.nanoClock = nanoClock;
        this.target = target;
    }

    /**
     * Whether this call may go to the store: always while closed; when open, only the first caller after
     * the cool-down (the probe). A caller that gets {@code true} must report {@link #onSuccess()} or
     * {@link #onFailure()}.
     */
    public boolean tryAcquire() {
        while (true) {
            State s = state.get();
            switch (s.phase) {
                case CLOSED:
                    return true;
                case PROBING:
                    return false;
                default:
                    if (nanoClock.getAsLong() - s.openUntilNanos < 0) {
                        return false;
                    }
                    if (state.compareAndSet(s, new State(Phase.PROBING, s.failures, s.openUntilNanos))) {
                        return true;
                    }
            }
        }
    }

    /** The store answered. */
    public void onSuccess() {
        State s = state.get();
        if (s == State.CLOSED) {
            return;
        }
        if (s.phase == Phase.OPEN) {
            // A late answer to a call that started before the breaker opened says nothing about now; the probe
            // decides. Without this, calls in flight when an outage begins close the breaker again at once, and
            // it flaps (two WARNINGs per flap) until they have drained.
            return;
        }
        if (state.compareAndSet(s, State.CLOSED) && s.phase != Phase.CLOSED) {
            LOG.log(Level.WARNING, "Sluice: " + target + " is reachable again; rate limits are enforced again");
        }
    }

    /** The store could not be reached. */
    public void onFailure() {
        onFailure(null);
    }

    /**
     * The store failed with {@code cause}. Its message goes into the one WARNING logged when the breaker
     * opens: "Redis failed" alone sends an operator looking at Redis when the real cause is an exhausted pool or
     * a replacement script that fails at run time.
     */
    public void onFailure(Throwable cause) {
        while (true) {
            State s = state.get();
            State next;
            if (s.phase == Phase.CLOSED) {
                int failures = s.failures + 1;
                next = failures < threshold ? new State(Phase.CLOSED, failures, 0)
                        : new State(Phase.OPEN, failures, nanoClock.getAsLong() + coolDownNanos);
            } else if (s.phase == Phase.PROBING) {
                next = new State(Phase.OPEN, s.failures + 1, nanoClock.getAsLong() + coolDownNanos);
            } else {
                return; // a call that started before the breaker opened; the cool-down already runs
            }
            if (state.compareAndSet(s, next)) {
                if (s.phase == Phase.CLOSED && next.phase == Phase.OPEN) {
                    LOG.log(Level.WARNING, "Sluice: " + target + " failed " + next.failures
                            + " times in a row" + (cause == null ? "" : " (last: " + cause.getMessage() + ")")
                            + "; skipping it for " + coolDownNanos / 1_000_000
                            + " ms at a time until it answers again (sluice.on-redis-failure applies meanwhile)");
                }
                return;
            }
        }
    }

    /** Whether calls currently skip the store. */
    public boolean isOpen() {
        return state.get().phase != Phase.CLOSED;
    }

    /** Milliseconds until the next probe may run (0 when closed or due), for {@code Retry-After}. */
    public long millisUntilProbe() {
        State s = state.get();
        if (s.phase == Phase.CLOSED) {
            return 0;
        }
        long left = s.openUntilNanos - nanoClock.getAsLong();
        return left <= 0 ? 0 : (left + 999_999) / 1_000_000;
    }
}
