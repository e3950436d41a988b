package dev.sluice.sample;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;

/**
 * The sample's evidence of what a lock or a semaphore guarded: how many transactions were ever, at once,
 * between the start of a guarded method and their commit. A lock must keep that at one,
 * {@code @Bounded(permits = n)} at n; a guard released when the method returns lets the next caller in while
 * the previous transaction is still committing.
 *
 * <p>The database is the judge of what committed: a transaction entering the section tells how many of the
 * section's transactions it sees committed, and the ones that entered before it and are neither committed
 * nor known to roll back are still under way. (Callbacks after completion would not do: the order in which
 * the transaction manager calls them, Sluice's release among them, is unspecified.) Each transaction also
 * commits slowly (a synchronization that sleeps before completion, as a real database's flush and commit
 * take time), or there would be no window to observe.
 *
 * <p>Thread-safe; application scoped.
 */
@ApplicationScoped
public class TransactionWitness {

    /** How long every witnessed commit takes, on top of the database's own work. */
    static final long COMMIT_MILLIS = 40;

    private final ConcurrentMap<String, Section> sections = new ConcurrentHashMap<>();

    /**
     * The current transaction enters {@code section}; its own commit will be slow. Call it before reading
     * what committed, and pass the answer to {@link #committedSeen}.
     *
     * @return how many transactions have entered the section so far, this one included
     */
    int enter(String section, TransactionSynchronizationRegistry transactions) {
        int entered = section(section).started.incrementAndGet();
        transactions.registerInterposedSynchronization(new Synchronization() {
            @Override
            public void beforeCompletion() {
                slowCommit();
            }

            @Override
            public void afterCompletion(int status) {
                // nothing: the database tells the next transaction what committed
            }
        });
        return entered;
    }

    /**
     * The transaction that {@linkplain #enter entered} {@code section} as number {@code entered} read, after
     * entering, that {@code committed} of the section's transactions have committed. Read in this order, a
     * transaction that entered earlier and is not counted as committed was still under way when this one
     * entered; one that entered later can only lower the count.
     */
    void committedSeen(String section, int entered, long committed) {
        Section seen = section(section);
        seen.mostAtOnce.accumulateAndGet((int) (entered - committed - seen.rollingBack.get()), Math::max);
    }

    /** A transaction of {@code section} that entered it is marked for rollback: it will never commit. */
    void rollingBack(String section) {
        section(section).rollingBack.incrementAndGet();
    }

    /** {@return the most transactions ever under way in {@code section} at once (0 when none entered)} */
    int mostAtOnce(String section) {
        Section found = sections.get(section);
        return found == null ? 0 : found.mostAtOnce.get();
    }

    private Section section(String name) {
        return sections.computeIfAbsent(name, n -> new Section());
    }

    private static void slowCommit() {
        try {
            Thread.sleep(COMMIT_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static final class Section {
        private final AtomicInteger started = new AtomicInteger();
        private final AtomicInteger rollingBack = new AtomicInteger();
        private final AtomicInteger mostAtOnce = new AtomicInteger();
    }
}
