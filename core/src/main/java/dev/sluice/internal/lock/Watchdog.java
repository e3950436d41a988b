package dev.sluice.internal.lock;

import java.lang.System.Logger.Level;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

/**
 * Renews the lease of every held lock and permit every third of its current lease (the one its last
 * {@code extend} set, if any), so a holder that runs longer
 * than its lease keeps it while its JVM is alive, and a holder that dies frees it within one lease.
 *
 * <p>Held leases sit in one concurrent set, swept by one task that renews those that are due and then
 * schedules itself for the next one due. Taking and releasing a lease only adds it to and removes it from
 * the set: the scheduler is touched only when a new lease is due before the next sweep, which for leases
 * held shorter than a third of their lease (most) is almost never. A sweep that is still busy after
 * {@link #STALL_ALLOWANCE_NANOS} (one renewal hanging on a slow store) lets the next sweep, on another thread,
 * renew the other leases; a lease is never renewed by two sweeps at once.
 *
 * <p>Runs on the server's {@code ManagedScheduledExecutorService} when the application can look it up
 * ({@code java:comp/DefaultManagedScheduledExecutorService}, Jakarta Concurrency), else on two daemon
 * threads of its own which {@link #close()} stops. The container's executor is never shut down by us.
 *
 * <p>A renewal that finds the lease gone marks it lost for good; a renewal that fails (store unreachable)
 * is retried at the next period, and the lease counts as lost once no renewal has been confirmed for a
 * whole lease. Whoever first finds a lease lost (or unconfirmed for a whole lease) has its holder log the one
 * warning of that loss.
 *
 * <p>Time is the lock path's one clock (see {@link LockService}); it also runs, bounded and fire-and-forget,
 * the clean-ups of calls whose reply was lost ({@link #execute}). Thread-safe.
 */
public final class Watchdog implements AutoCloseable {

    /** JNDI name of the default managed scheduled executor of Jakarta Concurrency. */
    public static final String MANAGED_EXECUTOR = "java:comp/DefaultManagedScheduledExecutorService";

    /**
     * How long one sweep may spend renewing before the next one is started beside it: a renewal can hang
     * up to the Redis timeout, and the other leases must not wait for it.
     */
    static final long STALL_ALLOWANCE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    /** No time: nanoTime values are compared by difference only, and this one stands for "none". */
    private static final long NONE = Long.MIN_VALUE;

    private static final System.Logger LOG = System.getLogger("dev.sluice.lock");
    private static final AtomicInteger THREADS = new AtomicInteger();

    /** What the watchdog renews: one held lock or permit. */
    interface Renewable {
        /** One renewal in the store, to {@code leaseMillis}: true when the store confirmed it, false when it is gone. */
        boolean renew(long leaseMillis);

        /** For the log: {@code lock 'order:42'}. */
        String describe();
    }

    private final ScheduledExecutorService executor;
    /** Our own scheduler, or null when the container's managed one is used. */
    private final ScheduledThreadPoolExecutor own;
    private final LongSupplier clock;
    private final Set<Renewal> watched = ConcurrentHashMap.newKeySet();
    /** The one sweep that is scheduled and not started yet, or null. */
    private final AtomicReference<Sweep> next = new AtomicReference<>();
    private volatile boolean closed;

    private Watchdog(ScheduledExecutorService executor, ScheduledThreadPoolExecutor own, LongSupplier clock) {
        this.executor = executor;
        this.own = own;
        this.clock = clock;
    }

    /**
     * The container's managed scheduler when available from this thread's naming context, else our own.
     *
     * @param clock the lock path's monotonic clock in nanoseconds, {@code System::nanoTime} outside tests
     */
    public static Watchdog create(LongSupplier clock) {
        ScheduledExecutorService managed = lookupManaged();
        return managed != null ? new Watchdog(managed, null, clock) : ownScheduler(clock);
    }

    /** A watchdog on daemon threads of its own and the JVM's monotonic clock. */
    public static Watchdog ownScheduler() {
        return ownScheduler(System::nanoTime);
    }

    /** A watchdog on daemon threads of its own (tests, Java SE, servers without Jakarta Concurrency). */
    public static Watchdog ownScheduler(LongSupplier clock) {
        // Two threads, so that a sweep stuck on one slow renewal does not hold up the next.
        ScheduledThreadPoolExecutor own = new ScheduledThreadPoolExecutor(2, r -> {
            Thread t = new Thread(r, "sluice-watchdog-" + THREADS.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        own.setRemoveOnCancelPolicy(true);
        own.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        return new Watchdog(own, own, clock);
    }

    /** A watchdog on a given scheduler, which the caller owns and shuts down (tests). */
    static Watchdog on(ScheduledExecutorService executor) {
        return on(executor, System::nanoTime);
    }

    /** A watchdog on a given scheduler and clock, which the caller owns (tests). */
    static Watchdog on(ScheduledExecutorService executor, LongSupplier clock) {
        return new Watchdog(executor, null, clock);
    }

    /** The lock path's clock: monotonic nanoseconds, compared by difference only. */
    LongSupplier clock() {
        return clock;
    }

    /**
     * Runs {@code task} soon on this watchdog's scheduler, never on the caller's thread.
     *
     * @throws java.util.concurrent.RejectedExecutionException when the scheduler is shut down (undeploy)
     */
    void execute(Runnable task) {
        executor.execute(task);
    }

    private static ScheduledExecutorService lookupManaged() {
        try {
            Object found = new javax.naming.InitialContext().lookup(MANAGED_EXECUTOR);
            // Checked against the Java SE supertype so that servers without Jakarta Concurrency never load its API.
            return found instanceof ScheduledExecutorService s ? s : null;
        } catch (javax.naming.NamingException | RuntimeException | LinkageError e) {
            return null;
        }
    }

    /**
     * Renews {@code lease} every third of its current lease, counted from the start of the store call that granted
     * it ({@code startedNanos}), until {@link Renewal#cancel()} or until the lease is found lost.
     */
    Renewal watch(Lease lease, long startedNanos, Renewable target) {
        Renewal renewal = new Renewal(lease, startedNanos + periodNanos(lease), target);
        watched.add(renewal);
        sweepBy(renewal.dueNanos);
        return renewal;
    }

    /**
     * Renews a lease held outside this package (the permits of a request in flight under a concurrency limit)
     * every third of {@code leaseMillis}, counted from now, until the returned action is run or {@code renew}
     * reports the lease gone.
     *
     * @param renew       one renewal in the store to the given lease: true when confirmed, false when the lease is
     *                    gone; a {@code RuntimeException} (store unreachable) is retried at the next period
     * @param description for the log, such as {@code a permit of concurrency limit 'reports'}
     * @return stops the renewals (idempotent)
     */
    public Runnable keep(long leaseMillis, java.util.function.LongPredicate renew, String description) {
        long started = clock.getAsLong();
        Lease lease = new Lease(clock, started, leaseMillis, m -> m, why -> LOG.log(Level.WARNING, "Sluice: "
                + description + " lost its lease: " + why + "; more holders than allowed may have run at once"));
        Renewal renewal = watch(lease, started, new Renewable() {
            @Override
            public boolean renew(long millis) {
                return renew.test(millis);
            }

            @Override
            public String describe() {
                return description;
            }
        });
        return renewal::cancel;
    }

    private static long periodNanos(Lease lease) {
        return TimeUnit.MILLISECONDS.toNanos(Math.max(1, lease.millis() / 3));
    }

    /** Number of leases being renewed (for tests). */
    int watching() {
        return watched.size();
    }

    /** Makes sure a sweep runs no later than {@code dueNanos}; the common case reads one field and returns. */
    private void sweepBy(long dueNanos) {
        while (!closed) {
            Sweep scheduled = next.get();
            if (scheduled != null && scheduled.atNanos - dueNanos <= 0) {
                return;
            }
            Sweep sweep = new Sweep(dueNanos);
            if (next.compareAndSet(scheduled, sweep)) {
                if (scheduled != null) {
                    scheduled.cancel();
                }
                try {
                    sweep.future = executor.schedule(sweep, Math.max(0, dueNanos - clock.getAsLong()),
                            TimeUnit.NANOSECONDS);
                } catch (RuntimeException e) {
                    // Shut down (undeploy): nothing is renewed any more, as before.
                    next.compareAndSet(sweep, null);
                    LOG.log(Level.DEBUG, "Sluice: could not schedule lease renewals", e);
                }
                return;
            }
        }
    }

    /** One scheduled run of {@link #sweep}; identity tells the current one from superseded ones. */
    private final class Sweep implements Runnable {
        final long atNanos;
        volatile ScheduledFuture<?> future;

        Sweep(long atNanos) {
            this.atNanos = atNanos;
        }

        /** Superseded by an earlier sweep: if it runs anyway it finds itself superseded and does nothing. */
        void cancel() {
            ScheduledFuture<?> f = future;
            if (f != null) {
                f.cancel(false);
            }
        }

        @Override
        public void run() {
            if (next.compareAndSet(this, null)) {
                sweep();
            }
        }
    }

    private void sweep() {
        long started = clock.getAsLong();
        if (anyDue(started)) {
            // Should this sweep hang on one renewal, the next starts beside it once the allowance is over and
            // shares out the remaining leases with it (each is claimed by one sweep at a time).
            sweepBy(started + STALL_ALLOWANCE_NANOS);
        }
        for (Renewal r : watched) {
            if (r.isDue(clock.getAsLong()) && r.claim()) {
                try {
                    // Checked again: another sweep may have renewed it between our look and our claim.
                    if (r.isDue(clock.getAsLong())) {
                        r.renew();
                    }
                } finally {
                    r.release();
                }
            }
        }
        long earliest = earliestDue();
        if (earliest != NONE) {
            sweepBy(earliest);
        }
    }

    private boolean anyDue(long now) {
        for (Renewal r : watched) {
            if (!r.busy.get() && r.isDue(now)) {
                return true;
            }
        }
        return false;
    }

    /** The earliest due time of a lease that no sweep is renewing right now; {@link #NONE} when there is none. */
    private long earliestDue() {
        long earliest = NONE;
        for (Renewal r : watched) {
            long due = r.dueNanos;
            if (!r.busy.get() && (earliest == NONE || due - earliest < 0)) {
                earliest = due;
            }
        }
        return earliest;
    }

    /** A watched lease; cancel it when the lock or permit is released. */
    final class Renewal {
        private final Lease lease;
        private final Renewable target;
        private final int hash = ThreadLocalRandom.current().nextInt();
        private final AtomicBoolean busy = new AtomicBoolean();
        private volatile long periodNanos;
        private volatile long dueNanos;

        private Renewal(Lease lease, long dueNanos, Renewable target) {
            this.lease = lease;
            this.periodNanos = periodNanos(lease);
            this.dueNanos = dueNanos;
            this.target = target;
        }

        /** Stops renewing; a renewal already under way finishes. */
        void cancel() {
            watched.remove(this);
        }

        /**
         * The holder set a new lease in a store call that started at {@code startedNanos}: the next renewal is a
         * third of the new lease from then (sooner than planned when the lease was shortened).
         */
        void leaseChanged(long startedNanos) {
            periodNanos = periodNanos(lease);
            dueNanos = startedNanos + periodNanos;
            sweepBy(dueNanos);
        }

        /** Due, or less than a tenth of its period from due: renewing a little early saves a sweep. */
        boolean isDue(long now) {
            return dueNanos - now <= periodNanos / 10;
        }

        boolean claim() {
            return busy.compareAndSet(false, true);
        }

        void release() {
            busy.set(false);
        }

        private void renew() {
            if (lease.isLost() || !watched.contains(this)) {
                watched.remove(this);
                return;
            }
            long started = clock.getAsLong();
            // Whatever happens, the next attempt is one period from this one, as with a fixed-rate task.
            periodNanos = periodNanos(lease);
            dueNanos = started + periodNanos;
            try {
                if (lease.renew(target::renew)) {
                    return;
                }
                watched.remove(this); // marked lost by renew(), which warns once through the holder
            } catch (RuntimeException e) {
                if (!lease.isHeld()) {
                    // Its holder can no longer count on it: warned about once (it may still be alive in the store).
                    lease.reportUnconfirmed("Redis could not be reached to renew it for a whole lease (" + e + ")");
                }
                // The lease may well still be alive: retried at the next period.
                LOG.log(Level.DEBUG, "Sluice: renewal of " + target.describe() + " failed, retrying", e);
            }
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object o) {
            return this == o;
        }
    }

    @Override
    public void close() {
        closed = true;
        watched.clear();
        if (own != null) {
            own.shutdownNow();
        }
    }
}
