package dev.sluice.sample;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;

/**
 * The sample's evidence of what a lock or a semaphore guarded: how many transactions were ever, at once,
 * between the start of a guarded method and their completion (commit or rollback). A lock must keep that at
 * one, {@code @Bounded(permits = n)} at n; a guard released when the method returns lets the next caller in
 * while the previous transaction is still committing.
 *
 * <p>Each transaction also commits slowly (a synchronization that sleeps before completion, as a real
 * database's flush and commit take time), or there would be no window to observe.
 *
 * <p>Thread-safe; application scoped.
 */
@ApplicationScoped
public class TransactionWitness {

    /** How long every witnessed commit takes, on top of the database's own work. */
    static final long COMMIT_MILLIS = 40;

    private final ConcurrentMap<String, Section> sections = new ConcurrentHashMap<>();

    /** The current transaction enters {@code section} now and leaves it when it completes. */
    void enterUntilCompletion(String section, TransactionSynchronizationRegistry transactions) {
        Section entered = sections.computeIfAbsent(section, name -> new Section());
        entered.enter();
        transactions.registerInterposedSynchronization(new Synchronization() {
            @Override
            public void beforeCompletion() {
                slowCommit();
            }

            @Override
            public void afterCompletion(int status) {
                entered.leave();
            }
        });
    }

    /** {@return the most transactions ever inside {@code section} at once (0 when none entered)} */
    int mostAtOnce(String section) {
        Section found = sections.get(section);
        return found == null ? 0 : found.mostAtOnce.get();
    }

    private static void slowCommit() {
        try {
            Thread.sleep(COMMIT_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static final class Section {
        private final AtomicInteger inside = new AtomicInteger();
        private final AtomicInteger mostAtOnce = new AtomicInteger();

        void enter() {
            mostAtOnce.accumulateAndGet(inside.incrementAndGet(), Math::max);
        }

        void leave() {
            inside.decrementAndGet();
        }
    }
}
