package dev.sluice.bench;

import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.function.Supplier;

/**
 * Hand-off latency of a lock contended by several nodes: {@link #NODES} independent clients (each its own
 * connection pool, subscriber and watchdog, as separate application servers would have), {@link
 * #THREADS_PER_NODE} threads each, loop acquire/release on one key. Whenever a thread gets the lock from a
 * thread of another node, the time from the holder starting its release to the new holder's acquire
 * returning is recorded: the delay a waiter adds on top of the critical section itself (the release, the
 * wake-up by pub/sub or poll, and the winning attempt).
 */
final class Handoff {

    /** Median and 99th percentile of the hand-offs between nodes, and how many there were per second. */
    record Result(String library, int round, long p50Nanos, long p99Nanos, double perSecond, long count) {
    }

    static final int NODES = 4;
    static final int THREADS_PER_NODE = 2;

    private volatile int holderNode = -1;
    private volatile long releaseStarted;
    private volatile boolean recording;

    static Result measure(String library, int round, Supplier<LockClient> node, Duration warmup, Duration duration)
            throws Exception {
        List<LockClient> nodes = new ArrayList<>();
        try {
            for (int n = 0; n < NODES; n++) {
                nodes.add(node.get());
            }
            return new Handoff().run(library, round, nodes, warmup, duration);
        } finally {
            nodes.forEach(LockClient::close);
        }
    }

    private Result run(String library, int round, List<LockClient> nodes, Duration warmup, Duration duration)
            throws Exception {
        int threadCount = NODES * THREADS_PER_NODE;
        List<Histogram> histograms = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        CyclicBarrier start = new CyclicBarrier(threadCount + 1);
        List<Throwable> failures = new ArrayList<>();
        long recordFrom = System.nanoTime() + Duration.ofSeconds(1).plus(warmup).toNanos();
        long end = recordFrom + duration.toNanos();
        for (int t = 0; t < threadCount; t++) {
            int node = t % NODES;
            LockClient locks = nodes.get(node);
            Histogram histogram = new Histogram(60_000_000_000L, 3);
            histograms.add(histogram);
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                    while (System.nanoTime() < end) {
                        LockClient.Held held = locks.acquire("handoff");
                        long acquired = System.nanoTime();
                        int previous = holderNode;
                        if (recording && previous != -1 && previous != node) {
                            histogram.recordValue(acquired - releaseStarted);
                        }
                        holderNode = node;
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
        Thread.sleep(Math.max(0, (recordFrom - System.nanoTime()) / 1_000_000)); // warm-up is a span of time
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
        return new Result(library, round, total.getValueAtPercentile(50), total.getValueAtPercentile(99),
                total.getTotalCount() / ((to - from) / 1e9), total.getTotalCount());
    }
}
