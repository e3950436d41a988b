package dev.sluice.internal.tx;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The server's transactions, found by a lookup that is tried again when it found nothing: a lock service may be
 * built on a thread without the application's naming context (an application's own thread), and a registry
 * missed then must not be missed for the application's lifetime. Once found, it is kept; until then a failed
 * lookup is tried again at most once per {@link #RETRY_NANOS}, and releases meanwhile happen at once.
 * Thread-safe (a race at most repeats one lookup).
 */
final class ServerTransactions implements Transactions {

    static final long RETRY_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final Supplier<Transactions> lookup;
    private final LongSupplier clock;
    private volatile Transactions found;
    private volatile long nextLookupNanos;

    /**
     * @param lookup one lookup: the registry's transactions, or {@link Transactions#NONE}
     * @param clock  monotonic nanoseconds
     */
    ServerTransactions(Supplier<Transactions> lookup, LongSupplier clock) {
        this.lookup = lookup;
        this.clock = clock;
        this.nextLookupNanos = clock.getAsLong();
        resolve();
    }

    private Transactions resolve() {
        Transactions f = found;
        if (f != null) {
            return f;
        }
        long now = clock.getAsLong();
        if (now - nextLookupNanos < 0) {
            return NONE;
        }
        nextLookupNanos = now + RETRY_NANOS;
        Transactions t = lookup.get();
        if (t != NONE) {
            found = t;
        }
        return t;
    }

    @Override
    public Object current() {
        return resolve().current();
    }

    @Override
    public boolean onCompletion(Completion completion) {
        return resolve().onCompletion(completion);
    }

    @Override
    public String toString() {
        Transactions f = found;
        return f != null ? f.toString() : "no JTA transaction registry found yet";
    }
}
