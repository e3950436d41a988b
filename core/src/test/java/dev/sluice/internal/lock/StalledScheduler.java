package dev.sluice.internal.lock;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A scheduler that accepts renewals and never runs them: the watchdog of a JVM that is stalled (a long
 * GC pause, a suspended VM) while its code still believes it holds a lock.
 */
final class StalledScheduler extends ScheduledThreadPoolExecutor {

    StalledScheduler() {
        super(1, r -> {
            Thread t = new Thread(r, "stalled-watchdog");
            t.setDaemon(true);
            return t;
        });
        setRemoveOnCancelPolicy(true);
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        return super.schedule(() -> { }, 1, TimeUnit.DAYS);
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        return super.schedule(() -> { }, 1, TimeUnit.DAYS);
    }
}
