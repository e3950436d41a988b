package dev.sluice.internal.lock;

import dev.sluice.internal.lease.Watchdog;
import dev.sluice.DistributedLock;
import dev.sluice.DistributedSemaphore;
import dev.sluice.internal.config.RedisSettings;
import dev.sluice.internal.metrics.SluiceMetrics;
import dev.sluice.internal.redis.CircuitBreaker;
import dev.sluice.internal.redis.KeyMaterial;
import dev.sluice.internal.tx.Transactions;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The locks and semaphores of one application over one {@link LockStore} and {@link SemaphoreStore}: a factory of
 * locks and semaphores, each handed its store and the shared {@link LockParts} (clock, watchdog, release signals,
 * circuit breaker, transactions), and the registry of what outlives one call: the holds of each thread for
 * reentrancy, and the local {@link WaitQueue} of each key while it is used.
 *
 * <p>Store keys are {@code <prefix>:lock:{<material>}} and {@code <prefix>:sem:{<material>}}, the material
 * being the caller's key through {@link KeyMaterial} (rendered {@code @Locked} keys may carry request
 * data). Thread-safe; closing it stops the watchdog and closes the stores.
 *
 * <p>Metrics go to the application's {@link SluiceMetrics} under the lock's <em>name</em>, never its key:
 * a {@code @Locked} method's name, or for a programmatic lock its key only when that is a registered lock
 * name (else {@link SluiceMetrics#OTHER}), since keys may carry request data.
 *
 * <p>Every store call a caller waits for meets the application's {@link CircuitBreaker} ({@link CircuitBreaker#call}).
 * Time on the lock path (leases, deadlines, the watchdog) is read from one injected monotonic clock, the
 * watchdog's ({@link Watchdog#clock()}), so tests move it instead of waiting for leases to run out.
 */
public final class LockService implements AutoCloseable {

    /** Default upper bound of the fallback poll of a waiter, in case a release message is lost. */
    public static final long DEFAULT_MAX_POLL_MILLIS = 100;

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

        /** Defaults for a service on its own: metrics published nowhere, a breaker that never opens, no JTA. */
        public static Options of(Watchdog watchdog, long maxPollMillis) {
            return new Options(maxPollMillis, SluiceMetrics.unpublished(RedisSettings.none()),
                    new CircuitBreaker(Integer.MAX_VALUE, java.time.Duration.ZERO, watchdog.clock(), "the lock store"),
                    Transactions.NONE);
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
    private final LockParts parts;
    private final String keyPrefix;
    private final WaitQueues queues = new WaitQueues();
    private final Map<DefaultDistributedLock.HoldKey, LockHold> holds = new ConcurrentHashMap<>();

    /**
     * @param signals  where releases are announced; the stores (or the Redis subscriber) signal it
     * @param watchdog renews leases and supplies the clock of everything on the lock path; closed with this service
     * @param options  the rest: poll bound, metrics, breaker, transactions ({@link Options#of} for defaults)
     */
    public LockService(LockStore lockStore, SemaphoreStore semaphoreStore, ReleaseSignals signals,
                       Watchdog watchdog, String keyPrefix, Options options) {
        this.metrics = options.metrics();
        this.lockStore = lockStore;
        this.semaphoreStore = semaphoreStore;
        this.signals = signals;
        this.watchdog = watchdog;
        this.keyPrefix = keyPrefix;
        this.parts = new LockParts(watchdog.clock(), watchdog, signals, queues,
                options.breaker(), new Cleanups(watchdog::execute),
                options.transactions(), TimeUnit.MILLISECONDS.toNanos(options.maxPollMillis()));
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
        return new DefaultDistributedLock(key, lockKey(key), metrics.lock(name), lockStore, holds, parts);
    }

    /** A semaphore named {@code name} with {@code permits} permits; cheap, may be created per call. */
    public DistributedSemaphore semaphore(String name, int permits) {
        requireText("semaphore name", name);
        if (permits < 1) {
            throw new IllegalArgumentException("permits of semaphore '" + name + "' must be at least 1, was " + permits);
        }
        return new DefaultDistributedSemaphore(name, semaphoreKey(name), permits, metrics.semaphore(name),
                semaphoreStore, parts);
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

    /**
     * Threads of this instance queued behind the holder of the lock at {@code storeKey} ({@link #lockKey}), or
     * behind the one of them that contends in the store, for tests and diagnostics.
     */
    public int queued(String storeKey) {
        WaitQueue queue = queues.get(storeKey);
        return queue == null ? 0 : queue.queued();
    }

    /**
     * Threads of this instance waiting for a permit of the semaphore at {@code storeKey} ({@link #semaphoreKey}),
     * for tests and diagnostics.
     */
    public int waitingForPermits(String storeKey) {
        WaitQueue queue = queues.get(storeKey);
        return queue == null ? 0 : queue.waiting();
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
