package dev.sluice.internal.lock;

import dev.sluice.internal.lease.Watchdog;
import dev.sluice.internal.redis.CircuitBreaker;
import dev.sluice.internal.tx.Transactions;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * What every lock and semaphore of one {@link LockService} works with besides its own store, handed to each
 * through its constructor. Immutable.
 *
 * @param clock         the one monotonic clock of leases, deadlines and the watchdog ({@link Watchdog#clock()})
 * @param watchdog      renews every held lease
 * @param signals       where waiters park and releases wake them
 * @param queues        the local queue of waiters of each key
 * @param calls         the application's circuit breaker, which every store call a caller waits for goes through
 *                      ({@link CircuitBreaker#call})
 * @param cleanups      undoes, off the caller's thread, an attempt whose reply was lost
 * @param transactions  the JTA transactions whose completion a release inside one waits for
 * @param maxPollNanos  upper bound of a waiter's fallback poll
 */
record LockParts(LongSupplier clock, Watchdog watchdog, ReleaseSignals signals, WaitQueues queues, CircuitBreaker calls,
                 Cleanups cleanups, Transactions transactions, long maxPollNanos) {

    /** How long a refused waiter parks at most before it tries again: the holder's remaining lease, bounded. */
    long pollNanos(long retryHintMillis) {
        if (retryHintMillis <= 0) {
            return 0;
        }
        return Math.min(TimeUnit.MILLISECONDS.toNanos(retryHintMillis), maxPollNanos);
    }
}
