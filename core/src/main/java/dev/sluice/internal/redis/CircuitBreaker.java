package dev.sluice.internal.redis;

import dev.sluice.StoreUnavailableException;
import redis.clients.jedis.exceptions.JedisException;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Keeps a dead Redis from adding a full timeout to every call: after {@code threshold} consecutive
 * failures the breaker opens and calls skip the store for {@code coolDown}; then exactly one call is let
 * through as a probe. A successful probe closes the breaker, a failed one opens it for another cool-down.
 * One breaker belongs to each application's runtime and every caller meets it: the servlet and JAX-RS
 * filters, the programmatic rate limiter, locks and semaphores.
 *
 * <p>Each call that may go ahead gets a ticket from {@link #enter()} and reports its outcome with that
 * ticket. While a probe runs, only the probe's own answer counts: a late answer to a call sent before the
 * outage says nothing about Redis now. Failures that a flood produces on a healthy Redis (the local
 * connection pool exhausted, an {@code OOM} reply: see {@link RedisFailures#isOverload}) are not counted:
 * counting them would let a flood switch every fail-open limit off.
 *
 * <p>Logs one WARNING when it opens and one when it closes again (operators alert on the first and look
 * for the second in the same place); failed probes and individual failures are not logged, so a long
 * outage costs two lines, not one per request.
 *
 * <p>Thread-safe and lock-free: the closed state, the hot path, is one volatile read.
 */
public final class CircuitBreaker {

    private final Listener listener;

    /** Consecutive failures that open the breaker. */
    public static final int DEFAULT_THRESHOLD = 3;

    /**
     * How long an open breaker skips the store. Short, so that limiting resumes within about a second
     * of Redis coming back.
     */
    public static final Duration DEFAULT_COOL_DOWN = Duration.ofSeconds(1);

    /** What {@link #enter()} returns when the call must skip the store. */
    public static final long REFUSED = -1;

    /** The ticket of every call let through while the breaker is closed. */
    private static final long ORDINARY = 0;

    private static final System.Logger LOG = System.getLogger("dev.sluice");

    private enum Phase { CLOSED, OPEN, PROBING }

    /** {@code probe} is the ticket of the running probe (PROBING), else of the last one. */
    private record State(Phase phase, int failures, long openUntilNanos, long probe) {
        static final State CLOSED = new State(Phase.CLOSED, 0, 0, ORDINARY);
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
        this(threshold, coolDown, nanoClock, target, Listener.NONE);
    }

    /**
     * @param listener told of every outcome of a {@link #call guarded call} and of the breaker's state after it
     *                 (the application's Redis status and gauges)
     */
    public CircuitBreaker(int threshold, Duration coolDown, LongSupplier nanoClock, String target, Listener listener) {
        this.listener = listener;
        if (threshold < 1 || coolDown.isNegative()) {
            throw new IllegalArgumentException("threshold " + threshold + ", cool-down " + coolDown);
        }
        this.threshold = threshold;
        this.coolDownNanos = coolDown.toNanos();
        this.nanoClock = nanoClock;
        this.target = target;
    }

    /**
     * What the breaker tells about the calls it guards, outside the decision: metrics listen (SmallRye's
     * {@code RateLimitEvents} shape). Called on the caller's thread; must not throw.
     */
    public interface Listener {

        /** Told nothing. */
        Listener NONE = new Listener() {
        };

        /** The store answered a call (whatever the answer: it is reachable). */
        default void answered() {
        }

        /** A call failed because the store could not be reached, did not answer in time, or failed it. */
        default void failed(Throwable cause) {
        }

        /** After every guarded call: whether calls now skip the store. */
        default void breakerOpen(boolean open) {
        }
    }

    /**
     * One store call through the breaker, the one way every caller (rate limits, concurrency permits, locks,
     * semaphores) goes through it (Resilience4j's {@code decorateSupplier} shape): refused at once while the breaker
     * is open, with a {@link StoreUnavailableException#isSkipped() skipped} {@link StoreUnavailableException} that
     * says what was not tried; otherwise run, and its outcome counted. A {@link StoreUnavailableException} or a
     * Jedis exception counts as a failure; any other exception means the store answered (with something
     * unexpected), and is rethrown as it is.
     *
     * @param what for the message when refused, e.g. {@code lock 'order:42'} or {@code the rate-limit decision}
     */
    public <T> T call(String what, Supplier<T> call) {
        long ticket = enter();
        if (ticket == REFUSED) {
            throw StoreUnavailableException.skipped(what, millisUntilProbe());
        }
        T result;
        try {
            result = call.get();
        } catch (StoreUnavailableException | JedisException e) {
            onFailure(ticket, e);
            listener.failed(e);
            listener.breakerOpen(isOpen());
            throw e;
        } catch (RuntimeException | Error e) {
            onSuccess(ticket);
            listener.answered();
            listener.breakerOpen(isOpen());
            throw e;
        }
        onSuccess(ticket);
        listener.answered();
        listener.breakerOpen(isOpen());
        return result;
    }

    /**
     * Whether this call may go to the store, as a ticket: always while closed; when open, only the first
     * caller after the cool-down (the probe). A caller that gets a ticket other than {@link #REFUSED} must
     * report {@link #onSuccess(long)} or {@link #onFailure(long, Throwable)} with it.
     */
    public long enter() {
        while (true) {
            State s = state.get();
            switch (s.phase) {
                case CLOSED:
                    return ORDINARY;
                case PROBING:
                    return REFUSED;
                default:
                    if (nanoClock.getAsLong() - s.openUntilNanos < 0) {
                        return REFUSED;
                    }
                    long probe = s.probe + 1;
                    if (state.compareAndSet(s, new State(Phase.PROBING, s.failures, s.openUntilNanos, probe))) {
                        return probe;
                    }
            }
        }
    }

    /** The store answered the call holding {@code ticket}. */
    public void onSuccess(long ticket) {
        State s = state.get();
        if (s == State.CLOSED) {
            return;
        }
        if (s.phase == Phase.OPEN || (s.phase == Phase.PROBING && ticket != s.probe)) {
            // A late answer to a call that started before the breaker opened, or before this probe, says nothing
            // about now; the probe decides. Without this, calls in flight when an outage begins close the breaker
            // again at once, and it flaps (two WARNINGs per flap) until they have drained.
            return;
        }
        State next = s.phase == Phase.PROBING ? State.CLOSED : new State(Phase.CLOSED, 0, 0, s.probe);
        if (state.compareAndSet(s, next) && s.phase == Phase.PROBING) {
            LOG.log(Level.WARNING, "Sluice: " + target + " is reachable again; calls go to it again");
        }
    }

    /**
     * The call holding {@code ticket} failed with {@code cause} (may be null). Its message goes into the one
     * WARNING logged when the breaker opens: "Redis failed" alone sends an operator looking at Redis when the
     * real cause is an exhausted pool or a replacement script that fails at run time.
     */
    public void onFailure(long ticket, Throwable cause) {
        boolean overload = cause != null && RedisFailures.isOverload(cause);
        while (true) {
            State s = state.get();
            State next;
            if (s.phase == Phase.CLOSED) {
                if (overload) {
                    return; // a flood on a healthy Redis: not a sign that Redis is down
                }
                int failures = s.failures + 1;
                next = failures < threshold ? new State(Phase.CLOSED, failures, 0, s.probe)
                        : new State(Phase.OPEN, failures, nanoClock.getAsLong() + coolDownNanos, s.probe);
            } else if (s.phase == Phase.PROBING && ticket == s.probe) {
                // An overloaded probe learnt nothing: the next caller probes again at once.
                next = overload ? new State(Phase.OPEN, s.failures, s.openUntilNanos, s.probe)
                        : new State(Phase.OPEN, s.failures + 1, nanoClock.getAsLong() + coolDownNanos, s.probe);
            } else {
                return; // a call that started before the breaker opened or before this probe
            }
            if (state.compareAndSet(s, next)) {
                if (s.phase == Phase.CLOSED && next.phase == Phase.OPEN) {
                    LOG.log(Level.WARNING, "Sluice: " + target + " failed " + next.failures
                            + " times in a row" + (cause == null ? "" : " (last: " + cause.getMessage() + ")")
                            + "; skipping it for " + coolDownNanos / 1_000_000
                            + " ms at a time until it answers again (sluice.on-redis-failure applies to rate"
                            + " limits meanwhile; locks and semaphores are refused)");
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
