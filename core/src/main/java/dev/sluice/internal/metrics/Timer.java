package dev.sluice.internal.metrics;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongConsumer;

/**
 * Durations of one kind (lock waits, lock holds): how many, their total and the longest, all since the
 * application started. The maximum never decays here; exporters with windowed maxima keep their own.
 *
 * <p>Thread-safe; recording allocates nothing.
 */
public final class Timer {

    private final LongAdder count = new LongAdder();
    private final LongAdder totalNanos = new LongAdder();
    private final AtomicLong maxNanos = new AtomicLong();
    private volatile LongConsumer mirror;

    /** Records one duration; negative values (a clock that went backwards) count as zero. */
    public void record(long nanos) {
        long n = Math.max(0, nanos);
        count.increment();
        totalNanos.add(n);
        long max = maxNanos.get();
        while (n > max && !maxNanos.compareAndSet(max, n)) {
            max = maxNanos.get();
        }
        LongConsumer m = mirror;
        if (m != null) {
            m.accept(n);
        }
    }

    public long count() {
        return count.sum();
    }

    public long totalNanos() {
        return totalNanos.sum();
    }

    public long maxNanos() {
        return maxNanos.get();
    }

    /** Total in {@code unit}, as a double (for exporters that report fractional seconds or milliseconds). */
    public double total(TimeUnit unit) {
        return (double) totalNanos() / unit.toNanos(1);
    }

    /** Maximum in {@code unit}, as a double. */
    public double max(TimeUnit unit) {
        return (double) maxNanos() / unit.toNanos(1);
    }

    /** Sends every later duration (nanoseconds) to {@code target} as well; {@code null} stops it. */
    void mirror(LongConsumer target) {
        mirror = target;
    }
}
