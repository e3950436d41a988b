package dev.sluice.bench;

import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;

/**
 * Hand-off latency of a contended lock: threads loop acquire/release on one key; whenever a thread gets the
 * lock from another thread, the time from the holder starting its release to the new holder's acquire
 * returning is recorded. This is the delay a waiter adds on top of the critical section itself: the release,
 * the wake-up (pub/sub or poll) and the winning attempt.
 */
final class Handoff {

    /** Median and 99th percentile of the hand-offs, and how many there were per second. */
    record Result(String library, int round, long p50Nanos, long p99Nanos, double perSecond, long count) {
    }

    static final int THREADS = 8;

    private volatile int holder = -1;
    private volatile long releaseStarted;
    private volatile boolean recording;

    static Result measure(String library, int round, LockClient locks, Duration warmup, Duration duration)
            throws Exception {
        return new Handoff().run(library, round, locks, warmup, duration);
    }

    private Result run(String library, int round, LockClient locks, Duration warmup, Duration duration) throws Exception {
        List<Histogram> histograms = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        CyclicBarrier start = new CyclicBarrier(THREADS + 1);
        List<Throwable> failures = new ArrayList<>();
        long warmupEnd = System.nanoTime() + warmup.toNanos() + Duration.ofSeconds(1).toNanos();
        long end = warmupEnd + duration.toNanos();
        for (int t = 0; t < THREADS; t++) {
            int me = t;
            Histogram histogram = new Histogram(60_000_000_000L, 3);
            histograms.add(histogram);
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                    while (System.nanoTime() < end) {
                        LockClient.Held held = locks.acquire("handoff");
                        long acquired = System.nanoTime();
                        int previous = holder;
                        if (recording && previous != -1 && previous != me) {
                            histogram.recordValue(acquired - releaseStarted);
                        }
                        holder = me;
                        releaseStarted = System.nanoTime();
                        held.close();
                    }
                } catch (Throwable e) {
                    synchronized (failures) {
                        failures.add(e);
                    }
                }
            }, "handoff-" + library + "-" + t);
            threads.add(thread);
            thread.start();
        }
        start.await();
        long now = System.nanoTime();
        Thread.sleep(Math.max(0, (warmupEnd - now) / 1_000_000)); // the warm-up is a span of time by definition
        recording = true;
        long from = System.nanoTime();
        for (Thread thread : threads) {
            thread.join();
        }
        long to = System.nanoTime();
        recording = false;
        if (!failures.isEmpty()) {
            IllegalStateException e = new IllegalStateException(library + " hand-off run failed");
            failures.forEach(e::addSuppressed);
            throw e;
        }
        Histogram total = new Histogram(60_000_000_000L, 3);
        histograms.forEach(total::add);
        double seconds = (to - from) / 1e9;
        return new Result(library, round, total.getValueAtPercentile(50), total.getValueAtPercentile(99),
                total.getTotalCount() / seconds, total.getTotalCount());
    }
}
