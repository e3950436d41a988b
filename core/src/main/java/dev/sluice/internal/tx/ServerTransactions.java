package dev.sluice.internal.tx;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The server's transactions, found by a lookup that is tried again when it found nothing: a lock service may be
 * built on a thread without the application's naming context (an application's own thread, a deployment
 * callback), and a registry missed then must not be missed by the releases that follow, or a lock would be
 * released before its transaction commits. Once found, it is kept. Until then every release looks again, for the
 * first {@link #EAGER_LOOKUPS} lookups that find nothing, so the first release on a thread that has the context
 * finds it; after that many (a server whose JTA API is present but binds no registry, such as Tomcat with the API
 * in the application) at most once per {@link #RETRY_NANOS}, and releases meanwhile happen at once.
 * Thread-safe (a race at most repeats one lookup).
 */
final class ServerTransactions implements Transactions {

    static final long RETRY_NANOS = TimeUnit.MINUTES.toNanos(1);

    /** Lookups that may find nothing before the next ones are spaced by {@link #RETRY_NANOS}. */
    static final int EAGER_LOOKUPS = 1000;

    private final Supplier<Transactions> lookup;
    private final LongSupplier clock;
    private final AtomicInteger misses = new AtomicInteger();
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
        boolean eager = misses.get() < EAGER_LOOKUPS;
        if (!eager) {
            long now = clock.getAsLong();
            if (now - nextLookupNanos < 0) {
                return NONE;
            }
            nextLookupNanos = now + RETRY_NANOS;
        }
        Transactions t = lookup.get();
        if (t != NONE) {
            found = t;
        } else if (misses.incrementAndGet() == EAGER_LOOKUPS) {
            nextLookupNanos = clock.getAsLong() + RETRY_NANOS;
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
