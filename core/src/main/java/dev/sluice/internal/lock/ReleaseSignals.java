package dev.sluice.internal.lock;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Where threads waiting for a lock or permit park, and where a release wakes them: the in-process stores
 * signal directly, the Redis stores through the application's one pub/sub subscriber.
 *
 * <p>A caller registers only once its first attempt was refused, so an acquisition that succeeds at once
 * costs no registration; a release that lands between that refused attempt and the registration is
 * still seen, because the caller reads {@link #releases(String)} before the attempt and compares after
 * registering. Once registered, it stays registered across its further attempts. A lost signal costs at
 * most the bounded fallback poll of the waiter. Every waiter of a key is woken (the lock service lets at most one thread per JVM and key
 * contend, so this is no herd for locks); fairness is not promised. Thread-safe.
 */
public final class ReleaseSignals {

    private static final int STRIPES = 64;

    private final ConcurrentHashMap<String, List<Waiter>> waiters = new ConcurrentHashMap<>();
    /** Releases signalled so far, counted per stripe of keys (a key's stripe follows its hash). */
    private final AtomicLongArray releases = new AtomicLongArray(STRIPES);

    /**
     * A number that changes whenever {@code key} is signalled (and sometimes when another key is): read it
     * before an attempt, and after registering as a waiter compare to learn whether a release came between.
     */
    public long releases(String key) {
        return releases.get(stripe(key));
    }

    private static int stripe(String key) {
        return key.hashCode() & (STRIPES - 1);
    }

    /** Registers the current thread as waiting for a release of {@code key}; close the waiter when done. */
    private Waiter register(String key) {
        Waiter waiter = new Waiter(key, Thread.currentThread());
        waiters.compute(key, (k, list) -> {
            List<Waiter> l = list == null ? new ArrayList<>(2) : list;
            l.add(waiter);
            return l;
        });
        return waiter;
    }

    /**
     * After a refused attempt on {@code key}: registers the current thread the first time ({@code registered}
     * null) and parks it until signalled or {@code nanos} have passed, unless a release was signalled since
     * {@code releasesSeen} (read before the attempt), in which case it returns at once to try again.
     *
     * @return the waiter to pass on the next call and to close when done
     */
    public Waiter park(Waiter registered, String key, long releasesSeen, long nanos) {
        return park(registered, key, releasesSeen, nanos, () -> false);
    }

    /**
     * {@link #park(Waiter, String, long, long)} that also returns as soon as {@code done} answers true after an
     * {@link LockSupport#unpark} of the parked thread (a permit handed over to it by a thread of this JVM).
     */
    Waiter park(Waiter registered, String key, long releasesSeen, long nanos, BooleanSupplier done) {
        Waiter waiter = registered;
        if (waiter == null) {
            waiter = register(key);
            if (releases(key) != releasesSeen) {
                return waiter;
            }
        }
        waiter.await(nanos, done);
        return waiter;
    }

    /** Wakes every thread waiting for {@code key}. */
    public void signal(String key) {
        releases.incrementAndGet(stripe(key));
        waiters.computeIfPresent(key, (k, list) -> {
            for (Waiter w : list) {
                w.wake();
            }
            return list;
        });
    }

    /** Wakes every waiter of every key: after the subscriber reconnected, messages may have been missed. */
    public void signalAll() {
        for (int i = 0; i < STRIPES; i++) {
            releases.incrementAndGet(i);
        }
        for (String key : waiters.keySet()) {
            signal(key);
        }
    }

    /** Number of keys with waiters (for tests). */
    int waitingKeys() {
        return waiters.size();
    }

    private void unregister(Waiter waiter) {
        waiters.computeIfPresent(waiter.key, (k, list) -> {
            list.remove(waiter);
            return list.isEmpty() ? null : list;
        });
    }

    /** One parked thread. Used by the registering thread only, except for {@link #wake()}. */
    public final class Waiter implements AutoCloseable {
        private final String key;
        private final Thread thread;
        private volatile boolean signalled;

        private Waiter(String key, Thread thread) {
            this.key = key;
            this.thread = thread;
        }

        void wake() {
            signalled = true;
            LockSupport.unpark(thread);
        }

        /**
         * Parks until signalled, interrupted or {@code nanos} have passed, and clears the signal.
         *
         * @return whether a signal arrived
         */
        public boolean await(long nanos) {
            return await(nanos, () -> false);
        }

        /** {@link #await(long)} that also returns once {@code done} answers true when the thread is unparked. */
        boolean await(long nanos, BooleanSupplier done) {
            long deadline = System.nanoTime() + nanos;
            while (!signalled && !done.getAsBoolean()) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || Thread.currentThread().isInterrupted()) {
                    break;
                }
                LockSupport.parkNanos(this, left);
            }
            boolean was = signalled;
            signalled = false;
            return was;
        }

        @Override
        public void close() {
            unregister(this);
        }
    }
}
