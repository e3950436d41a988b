package dev.sluice.internal.tx;

import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;

import java.lang.System.Logger.Level;

/**
 * {@link Transactions} over the server's {@link TransactionSynchronizationRegistry}: completions are interposed
 * synchronizations, so they run after every resource has committed or rolled back (and their
 * {@code beforeCompletion} after the ordinary synchronizations, such as a JPA flush). The only class of Sluice
 * that names the JTA API; loaded only where it is present. Thread-safe.
 */
public final class JtaTransactions implements Transactions {

    private static final System.Logger LOG = System.getLogger("dev.sluice.lock");

    private final TransactionSynchronizationRegistry registry;

    private JtaTransactions(TransactionSynchronizationRegistry registry) {
        this.registry = registry;
    }

    /** Over {@code registry} when it is a JTA registry of Sluice's class loader, else {@link Transactions#NONE}. */
    public static Transactions over(Object registry) {
        return registry instanceof TransactionSynchronizationRegistry r ? new JtaTransactions(r) : NONE;
    }

    @Override
    public Object current() {
        try {
            int status = registry.getTransactionStatus();
            // Only an active one: a transaction marked rollback-only commits nothing there is to wait for, and
            // Narayana (WildFly) accepts a synchronization then but never completes it after the rollback.
            return status == Status.STATUS_ACTIVE ? registry.getTransactionKey() : null;
        } catch (RuntimeException e) {
            // A registry that cannot tell (a thread the server does not manage): as without a transaction.
            LOG.log(Level.DEBUG, "Sluice: could not read the transaction of this thread", e);
            return null;
        }
    }

    @Override
    public boolean onCompletion(Completion completion) {
        try {
            registry.registerInterposedSynchronization(new Synchronization() {
                @Override
                public void beforeCompletion() {
                    if (!completion.stillHeld()) {
                        registry.setRollbackOnly();
                    }
                }

                @Override
                public void afterCompletion(int status) {
                    completion.completed(status == Status.STATUS_COMMITTED);
                }
            });
            return true;
        } catch (IllegalStateException e) {
            // Completing already (or rollback-only where the manager refuses): its writes are not committed.
            LOG.log(Level.DEBUG, "Sluice: the transaction refused a synchronization; releasing at once", e);
            return false;
        }
    }

    @Override
    public String toString() {
        return "JTA transactions through " + registry.getClass().getName();
    }
}
