package dev.sluice.internal.lock;

import java.lang.System.Logger.Level;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Renews the lease of every held lock and permit every third of its lease, so a holder that runs longer
 * than its lease keeps it while its JVM is alive, and a holder that dies frees it within one lease.
 *
 * <p>Runs on the server's {@code ManagedScheduledExecutorService} when the application can look it up
 * ({@code java:comp/DefaultManagedScheduledExecutorService}, Jakarta Concurrency), else on one daemon
 * thread of its own which {@link #close()} stops. The container's executor is never shut down by us.
 *
 * <p>A renewal that finds the lease gone marks it lost for good; a renewal that fails (store unreachable)
 * is retried at the next period, and the lease counts as lost once no renewal has been confirmed for a
 * whole lease. Thread-safe.
 */
public final class Watchdog implements AutoCloseable {

    /** JNDI name of the default managed scheduled executor of Jakarta Concurrency. */
    public static final String MANAGED_EXECUTOR = "java:comp/DefaultManagedScheduledExecutorService";

    private static final System.Logger LOG = System.getLogger("dev.sluice.lock");
    private static final AtomicInteger THREADS = new AtomicInteger();

    /** One renewal step: true when the store confirmed the lease, false when it is gone. */
    @FunctionalInterface
    interface Renewer {
        boolean renew();
    }

    private final ScheduledExecutorService executor;
    /** Our own scheduler, or null when the container's managed one is used. */
    private final ScheduledThreadPoolExecutor own;

    private Watchdog(ScheduledExecutorService executor, ScheduledThreadPoolExecutor own) {
        this.executor = executor;
        this.own = own;
    }

    /** The container's managed scheduler when available from this thread's naming context, else our own. */
    public static Watchdog create() {
        ScheduledExecutorService managed = lookupManaged();
        return managed != null ? new Watchdog(managed, null) : ownScheduler();
    }

    /** A watchdog on a daemon scheduler of its own (tests, Java SE, servers without Jakarta Concurrency). */
    public static Watchdog ownScheduler() {
        ScheduledThreadPoolExecutor own = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "sluice-watchdog-" + THREADS.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        // Every release cancels a task; without this the queue would fill with cancelled renewals.
        own.setRemoveOnCancelPolicy(true);
        own.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        return new Watchdog(own, own);
    }

    /** A watchdog on a given scheduler, which the caller owns and shuts down (tests). */
    static Watchdog on(ScheduledExecutorService executor) {
        return new Watchdog(executor, null);
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

    /** Whether renewals run on the container's managed executor. */
    public boolean usesManagedExecutor() {
        return own == null;
    }

    /**
     * Renews {@code lease} every {@code leaseMillis / 3} until {@link Renewal#cancel()} or until the lease
     * is found lost.
     */
    Renewal watch(String what, Lease lease, long leaseMillis, Renewer renewer) {
        long period = Math.max(1, leaseMillis / 3);
        Renewal renewal = new Renewal();
        renewal.future = executor.scheduleAtFixedRate(() -> {
            if (lease.isLost()) {
                renewal.cancel();
                return;
            }
            long started = System.nanoTime();
            try {
                if (renewer.renew()) {
                    lease.renewed(started);
                    return;
                }
                lease.markLost();
                renewal.cancel();
                LOG.log(Level.WARNING, "Sluice: the lease of " + what + " ran out before it was released; "
                        + "another holder may have overlapped with this one");
            } catch (RuntimeException e) {
                // The lease may well still be alive; isHeld() turns false by itself after a whole lease.
                LOG.log(Level.DEBUG, "Sluice: renewal of " + what + " failed, retrying", e);
            }
        }, period, period, TimeUnit.MILLISECONDS);
        return renewal;
    }

    /** A scheduled renewal; cancel it when the lock or permit is released. */
    static final class Renewal {
        private volatile ScheduledFuture<?> future;

        void cancel() {
            ScheduledFuture<?> f = future;
            if (f != null) {
                f.cancel(false);
            }
        }
    }

    @Override
    public void close() {
        if (own != null) {
            own.shutdownNow();
        }
    }
}
