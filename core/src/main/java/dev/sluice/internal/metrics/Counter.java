package dev.sluice.internal.metrics;

import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongConsumer;

/**
 * A count that only goes up, cheap enough for every rate-limit decision: one {@link LongAdder} increment
 * and one volatile read, no allocation. An exporter that needs every increment pushed to it (MicroProfile
 * Metrics has no function counters) installs a {@linkplain #mirror mirror}; the others read {@link #count()}.
 *
 * <p>Thread-safe.
 */
public final class Counter {

    private final LongAdder value = new LongAdder();
    private volatile LongConsumer mirror;

    public void increment() {
        value.increment();
        LongConsumer m = mirror;
        if (m != null) {
            m.accept(1);
        }
    }

    /** The count since the application started. */
    public long count() {
        return value.sum();
    }

    /** Sends every later increment to {@code target} as well; {@code null} stops it. */
    void mirror(LongConsumer target) {
        mirror = target;
    }
}
