package dev.sluice.internal.lock;

import dev.sluice.internal.lease.Watchdog;
import dev.sluice.DistributedLock;
import dev.sluice.DistributedSemaphore;
import dev.sluice.StoreUnavailableException;
import dev.sluice.internal.config.RedisSettings;
import dev.sluice.internal.metrics.SluiceMetrics;
import dev.sluice.internal.redis.CircuitBreaker;
import dev.sluice.internal.redis.KeyMaterial;
import dev.sluice.internal.tx.Transactions;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The locks and semaphores of one application over one {@link LockStore} and {@link SemaphoreStore}: it
 * keeps the reentrancy bookkeeping, the per-key local gates and the watchdog that renews leases.
 *
 * <p>Store keys are {@code <prefix>:lock:{<material>}} and {@code <prefix>:sem:{<material>}}, the material
 * being the caller's key through {@link KeyMaterial} (rendered {@code @Locked} keys may carry request
 * data). Thread-safe; closing it stops the watchdog and closes the stores.
 *
 * <p>Metrics go to the application's {@link SluiceMetrics} under the lock's <em>name</em>, never its key:
 * a {@code @Locked} method's name, or for a programmatic lock its key only when that is a registered lock
 * name (else {@link SluiceMetrics#OTHER}), since keys may carry request data.
 *
 * <p>Every store call a caller waits for ({@link #store}) meets the application's {@link CircuitBreaker}: while it
 * is open the call fails at once with {@link StoreUnavailableException}, and every outcome counts in it. Renewals
 * stay outside it, so a breaker opened by other callers never costs a holder its lease. Time on the lock path
 * (leases, deadlines, the watchdog) is read from one injected monotonic clock, the watchdog's
 * ({@link Watchdog#clock()}), so tests move it instead of waiting for leases to run out.
 */
public final class LockService implements AutoCloseable {

    /** Default upper bound of the fallback poll of a waiter, in case a release message is lost. */
    public static final long DEFAULT_MAX_POLL_MILLIS = 100;

    /** A thread's hold of one lock key, for reentrancy. */
    record HoldKey(Thread thread, String storeKey) {
    }

    /**
     * Lets one thread per JVM and key contend in the store at a time; the others queue here in arrival
     * order. This keeps a release from waking a herd of local threads that would all hit the store for one
     * winner, and lets the holder pass the lock straight to the next queued thread in one store call
     * ({@link LockStore#handOver}) instead of a release and an acquisition.
     *
     * <p>{@link #users} is guarded by the service's gate map; the rest by this object's monitor.
     */
    static final class Gate {
        int users;
        private boolean busy;
        private final ArrayDeque<Turn> queue = new ArrayDeque<>();

        /** Takes the gate if it is free ({@code null}), else queues and returns a turn to wait on. */
        synchronized Turn enter(String owner, long leaseMillis) {
            if (!busy) {
                busy = true;
                return null;
            }
            Turn turn = new Turn(Thread.currentThread(), owner, leaseMillis);
            queue.add(turn);
            return turn;
        }

        /**
         * For a holder about to release: the next waiting turn, claimed so that it can no longer time out,
         * to hand the lock to; {@code null} (gate still taken) when nobody waits.
         */
        Turn claimNext() {
            return claim(false);
        }

        /** Leaves the gate without the lock: the next waiting turn contends in the store, or the gate is free. */
        void leave() {
            Turn turn = claim(true);
            if (turn != null) {
                turn.contend();
            }
        }

        private synchronized Turn claim(boolean freeIfNobodyWaits) {
            Turn turn = queue.poll();
            if (turn != null) {
                turn.state = Turn.CLAIMED;
            } else if (freeIfNobodyWaits) {
                busy = false;
            }
            return turn;
        }

        /** Gives up a turn that has not been claimed; false when it was claimed and its outcome must be awaited. */
        synchronized boolean cancel(Turn turn) {
            if (turn.state != Turn.WAITING) {
                return false;
            }
            queue.remove(turn);
            turn.state = Turn.CANCELLED;
            return true;
        }
    }

    /**
     * A thread queued at a {@link Gate}. Its state goes WAITING, then CLAIMED by the leaving holder (or
     * CANCELLED by the waiter itself), then GRANTED with the lock or CONTEND (its turn to try the store).
     */
    static final class Turn {
        static final int WAITING = 0;
        static final int CLAIMED = 1;
        static final int GRANTED = 2;
        static final int CONTEND = 3;
        static final int CANCELLED = 4;

        final Thread thread;
        final String owner;
        final long leaseMillis;
        volatile int state = WAITING;
        /** When granted: the fencing token, and when the store call that granted it started. */
        long fencingToken;
        long grantedAtNanos;

        Turn(Thread thread, String owner, long leaseMillis) {
            this.thread = thread;
            this.owner = owner;
            this.leaseMillis = leaseMillis;
        }

        private static final AtomicIntegerFieldUpdater<Turn> STATE =
                AtomicIntegerFieldUpdater.newUpdater(Turn.class, "state");

        /** Resolves a claimed turn with the lock; no effect once resolved. */
        void grant(long token, long startedNanos) {
            fencingToken = token;
            grantedAtNanos = startedNanos;
            if (STATE.compareAndSet(this, CLAIMED, GRANTED)) {
                LockSupport.unpark(thread);
            }
        }

        /** Resolves a claimed turn without the lock: its thread tries the store itself. No effect once resolved. */
        void contend() {
            if (STATE.compareAndSet(this, CLAIMED, CONTEND)) {
                LockSupport.unpark(thread);
            }
        }

        /** Parks until claimed and resolved, or until {@code deadline} while still unclaimed, or interrupted. */
        void await(long deadline, LongSupplier clock) {
            boolean interrupted = false;
            while (state < GRANTED) {
                if (state == WAITING) {
                    long left = deadline - clock.getAsLong();
                    if (left <= 0 || Thread.currentThread().isInterrupted()) {
                        return;
                    }
                    LockSupport.parkNanos(this, left);
                } else {
                    // Claimed: the holder's store call decides within its timeout; wait for it.
                    LockSupport.park(this);
                    interrupted |= Thread.interrupted();
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * How a service behaves besides its stores. Immutable.
     *
     * @param maxPollMillis upper bound of a waiter's fallback poll (a waiter polls no later than the holder's
     *                      remaining lease either); {@link #DEFAULT_MAX_POLL_MILLIS} by default
     * @param metrics       where acquisitions, holds, timeouts, lost leases and renewals are counted
     * @param breaker       the application's circuit breaker over its store
     * @param transactions  the JTA transactions whose completion a release inside one waits for;
     *                      {@link Transactions#NONE} where there are none
     */
    public record Options(long maxPollMillis, SluiceMetrics metrics, CircuitBreaker breaker,
                          Transactions transactions) {

        /** Without transactions: every release happens when its holder asks for it. */
        public Options(long maxPollMillis, SluiceMetrics metrics, CircuitBreaker breaker) {
            this(maxPollMillis, metrics, breaker, Transactions.NONE);
        }

        /** Defaults for a service on its own: metrics published nowhere, a breaker that never opens, no JTA. */
        public static Options of(Watchdog watchdog, long maxPollMillis) {
            return new Options(maxPollMillis, SluiceMetrics.unpublished(RedisSettings.none()),
                    new CircuitBreaker(Integer.MAX_VALUE, java.time.Duration.ZERO, watchdog.clock(), "the lock store"));
        }

        /** The same with {@code transactions}. */
        public Options with(Transactions transactions) {
            return new Options(maxPollMillis, metrics, breaker, transactions);
        }
    }

    final LockStore lockStore;
    final SemaphoreStore semaphoreStore;
    final ReleaseSignals signals;
    final Watchdog watchdog;
    final SluiceMetrics metrics;
    final LongSupplier clock;
    final Cleanups cleanups;
    final Transactions transactions;
    private final CircuitBreaker breaker;
    private final String keyPrefix;
    private final long maxPollNanos;
    final Map<HoldKey, LockHold> holds = new ConcurrentHashMap<>();
    private final Map<String, Gate> gates = new ConcurrentHashMap<>();
    private final Map<String, PermitGate> permitGates = new ConcurrentHashMap<>();

    /**
     * @param signals where releases are announced; the stores (or the Redis subscriber) signal it
     * @param watchdog renews leases and supplies the clock; closed with this service
     */
    public LockService(LockStore lockStore, SemaphoreStore semaphoreStore, ReleaseSignals signals,
                       Watchdog watchdog, String keyPrefix) {
        this(lockStore, semaphoreStore, signals, watchdog, keyPrefix, DEFAULT_MAX_POLL_MILLIS);
    }

    /**
     * @param maxPollMillis upper bound of a waiter's fallback poll (a waiter polls no later than the
     *                      holder's remaining lease either)
     */
    public LockService(LockStore lockStore, SemaphoreStore semaphoreStore, ReleaseSignals signals,
                       Watchdog watchdog, String keyPrefix, long maxPollMillis) {
        this(lockStore, semaphoreStore, signals, watchdog, keyPrefix, Options.of(watchdog, maxPollMillis));
    }

    public LockService(LockStore lockStore, SemaphoreStore semaphoreStore, ReleaseSignals signals,
                       Watchdog watchdog, String keyPrefix, Options options) {
        this.metrics = options.metrics();
        this.maxPollNanos = TimeUnit.MILLISECONDS.toNanos(options.maxPollMillis());
        this.breaker = options.breaker();
        this.transactions = options.transactions();
        this.clock = watchdog.clock();
        this.lockStore = lockStore;
        this.semaphoreStore = semaphoreStore;
        this.signals = signals;
        this.watchdog = watchdog;
        this.cleanups = new Cleanups(watchdog::execute);
        this.keyPrefix = keyPrefix;
    }

    /**
     * One store call a caller waits for, through the breaker: refused at once while it is open, and its outcome
     * counted in it and in the Redis status.
     *
     * @param what for the message when refused, e.g. {@code lock 'order:42'}
     * @throws StoreUnavailableException when the breaker is open
     * @throws RuntimeException from {@code call} when the store cannot be reached
     */
    <T> T store(String what, Supplier<T> call) {
        long ticket = breaker.enter();
        if (ticket == CircuitBreaker.REFUSED) {
            long wait = breaker.millisUntilProbe();
            throw new Skipped("Sluice: " + what + " was not tried: the store failed repeatedly and is skipped for "
                    + "another " + wait + " ms", wait);
        }
        T result;
        try {
            result = call.get();
        } catch (RuntimeException e) {
            breaker.onFailure(ticket, e);
            metrics.redis().failed(e);
            throw e;
        }
        breaker.onSuccess(ticket);
        metrics.redis().answered();
        return result;
    }

    /** A store call the open breaker did not let through: nothing reached the store, so nothing is to undo. */
    static final class Skipped extends StoreUnavailableException {
        private static final long serialVersionUID = 1L;

        Skipped(String message, long retryAfterMillis) {
            super(message, retryAfterMillis);
        }
    }

    /**
     * A lock on {@code key}; cheap, may be created per call. Its metrics go under {@code key} when that is a
     * registered lock name, else under {@link SluiceMetrics#OTHER}.
     */
    public DistributedLock lock(String key) {
        return lock(key, key);
    }

    /** A lock on {@code key} whose metrics go under lock name {@code name} (a {@code @Locked} method's name). */
    public DistributedLock lock(String key, String name) {
        requireText("lock key", key);
        return new DefaultDistributedLock(this, key, lockKey(key), metrics.lock(name));
    }

    /** A semaphore named {@code name} with {@code permits} permits; cheap, may be created per call. */
    public DistributedSemaphore semaphore(String name, int permits) {
        requireText("semaphore name", name);
        if (permits < 1) {
            throw new IllegalArgumentException("permits of semaphore '" + name + "' must be at least 1, was " + permits);
        }
        return new DefaultDistributedSemaphore(this, name, semaphoreKey(name), permits, metrics.semaphore(name));
    }

    /** {@code <prefix>:lock:{<material>}}; the fencing counter is this plus {@code :fence}. */
    public String lockKey(String key) {
        return keyPrefix + ":lock:{" + KeyMaterial.of(key) + '}';
    }

    /** {@code <prefix>:sem:{<material>}}. */
    public String semaphoreKey(String name) {
        return keyPrefix + ":sem:{" + KeyMaterial.of(name) + '}';
    }

    public ReleaseSignals signals() {
        return signals;
    }

    Gate enterGate(String storeKey) {
        return gates.compute(storeKey, (k, g) -> {
            Gate gate = g == null ? new Gate() : g;
            gate.users++;
            return gate;
        });
    }

    /**
     * Threads of this instance queued behind the holder of the lock at {@code storeKey} ({@link #lockKey}), for
     * tests and diagnostics.
     */
    public int queued(String storeKey) {
        Gate gate = gates.get(storeKey);
        if (gate == null) {
            return 0;
        }
        synchronized (gate) {
            return gate.queue.size();
        }
    }

    void leaveGate(String storeKey, Gate gate) {
        gates.computeIfPresent(storeKey, (k, g) -> g == gate && --g.users == 0 ? null : g);
    }

    /** The semaphore's gate, counted as used until {@link #leavePermitGate} (a holder keeps it until it returns). */
    PermitGate enterPermitGate(String storeKey) {
        return permitGates.compute(storeKey, (k, g) -> {
            PermitGate gate = g == null ? new PermitGate() : g;
            gate.users++;
            return gate;
        });
    }

    void leavePermitGate(String storeKey, PermitGate gate) {
        permitGates.computeIfPresent(storeKey, (k, g) -> g == gate && --g.users == 0 ? null : g);
    }

    /**
     * Threads of this instance waiting for a permit of the semaphore at {@code storeKey} ({@link #semaphoreKey}),
     * for tests and diagnostics.
     */
    public int waitingForPermits(String storeKey) {
        PermitGate gate = permitGates.get(storeKey);
        return gate == null ? 0 : gate.waiting();
    }

    /** How long a refused waiter parks at most before it tries again. */
    long pollNanos(long retryHintMillis) {
        if (retryHintMillis <= 0) {
            return 0;
        }
        return Math.min(TimeUnit.MILLISECONDS.toNanos(retryHintMillis), maxPollNanos);
    }

    /** @param kind {@code lock} or {@code semaphore}, for the message, with {@code name} */
    static long leaseMillis(String kind, String name, Duration lease) {
        if (lease == null || lease.isNegative() || lease.isZero() || lease.toMillis() < 1) {
            throw new IllegalArgumentException("lease of " + kind + " '" + name + "' must be at least 1ms, was " + lease);
        }
        return lease.toMillis();
    }

    static long maxWaitNanos(String kind, String name, Duration maxWait) {
        if (maxWait == null || maxWait.isNegative()) {
            throw new IllegalArgumentException("maxWait of " + kind + " '" + name + "' must be zero or positive, was "
                    + maxWait);
        }
        return maxWait.toNanos();
    }

    private static void requireText(String what, String value) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException(what + " must not be empty");
        }
    }

    @Override
    public void close() {
        watchdog.close();
        lockStore.close();
        semaphoreStore.close();
    }
}
