package dev.sluice.internal.lock;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The lock path's clock in tests: real time plus an offset the test moves forward, so that a lease runs out when
 * the test says, not after the test has waited for it. The in-process stores read the same clock (in microseconds
 * since the epoch); a Redis store is moved with it by its fixture. Thread-safe.
 */
final class TestClock {

    private final AtomicLong offsetNanos = new AtomicLong();

    /** Monotonic nanoseconds, for the lock service and its watchdog. */
    long nanos() {
        return System.nanoTime() + offsetNanos.get();
    }

    /** Microseconds since the epoch, for the in-process stores. */
    long micros() {
        return InProcessLockStore.wallClockMicros() + offsetNanos.get() / 1_000;
    }

    void advance(Duration by) {
        offsetNanos.addAndGet(by.toNanos());
    }
}
