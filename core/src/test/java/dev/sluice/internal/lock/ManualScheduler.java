package dev.sluice.internal.lock;

import dev.sluice.internal.lease.Watchdog;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A scheduler that runs nothing by itself: the test runs what was scheduled, on its own thread, when it says
 * ({@link #runPending()}). With a {@link TestClock} it makes the watchdog's renewals happen exactly when a test
 * wants them, and never otherwise (a node cut off).
 */
public class ManualScheduler extends ScheduledThreadPoolExecutor {

    private final List<Runnable> pending = new ArrayList<>();

    public ManualScheduler() {
        super(1, r -> {
            Thread t = new Thread(r, "manual-watchdog");
            t.setDaemon(true);
            return t;
        });
        setRemoveOnCancelPolicy(true);
    }

    @Override
    public synchronized ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        pending.add(command);
        return super.schedule(() -> { }, 1, TimeUnit.DAYS);
    }

    @Override
    public void execute(Runnable command) {
        schedule(command, 0, TimeUnit.NANOSECONDS);
    }

    /** A watchdog that renews only when {@link #runPending()} runs, on {@code clock} (nanoseconds). */
    public Watchdog watchdog(LongSupplier clock) {
        return Watchdog.on(this, clock);
    }

    /** Runs everything scheduled so far (whether due or not: the tasks check the clock themselves). */
    public void runPending() {
        List<Runnable> now;
        synchronized (this) {
            now = new ArrayList<>(pending);
            pending.clear();
        }
        now.forEach(Runnable::run);
    }
}
