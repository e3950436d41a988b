package dev.sluice.test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Measures how late this JVM's threads get the CPU while a test runs, so that a wall-clock bound in an
 * integration test can tell Sluice's own waiting from the machine's: a thread that asks to wake after one
 * millisecond and wakes after 300 was kept off the CPU for 299, and so may any thread of the test have been.
 *
 * <p>A daemon thread parks for {@link #TICK} again and again and records each wake-up's lateness: the longest one
 * and the sum of those longer than a threshold. On a quiet machine both stay near zero and the bounds that add
 * them stay as tight as written; on a loaded one they grow by what the scheduler took. It is a sample, not a
 * guarantee: another thread can be kept waiting longer than this one was.
 */
public final class SchedulerStalls implements AutoCloseable {

    static final Duration TICK = Duration.ofMillis(1);

    private final long thresholdNanos;
    private final AtomicLong longest = new AtomicLong();
    private final AtomicLong totalBeyondThreshold = new AtomicLong();
    private final Thread thread;
    private volatile boolean running = true;

    private SchedulerStalls(Duration threshold) {
        this.thresholdNanos = threshold.toNanos();
        this.thread = new Thread(this::run, "scheduler-stalls");
        thread.setDaemon(true);
        thread.setPriority(Thread.MAX_PRIORITY);
        thread.start();
    }

    /** Starts measuring; stalls shorter than {@code threshold} count towards {@link #longest()} only. */
    public static SchedulerStalls start(Duration threshold) {
        return new SchedulerStalls(threshold);
    }

    private void run() {
        long tick = TICK.toNanos();
        while (running) {
            long before = System.nanoTime();
            LockSupport.parkNanos(tick);
            long late = System.nanoTime() - before - tick;
            if (late > 0) {
                longest.accumulateAndGet(late, Math::max);
                if (late >= thresholdNanos) {
                    totalBeyondThreshold.addAndGet(late);
                }
            }
        }
    }

    /** The latest wake-up seen so far, beyond the tick asked for. */
    public Duration longest() {
        return Duration.ofNanos(longest.get());
    }

    /** The sum of the stalls at least as long as the threshold. */
    public Duration total() {
        return Duration.ofNanos(totalBeyondThreshold.get());
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        LockSupport.unpark(thread);
        thread.join(TimeUnit.SECONDS.toMillis(5));
    }

    @Override
    public String toString() {
        return "scheduler stalls: longest " + longest().toMillis() + " ms, " + total().toMillis() + " ms in all";
    }
}
