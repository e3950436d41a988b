package dev.sluice.internal.tx;

import java.lang.System.Logger.Level;

/**
 * The JTA transaction of the calling thread, as far as locks and semaphores need it: whether one is running, and
 * a way to act when it completes. A lock or permit released while a transaction runs is released only once that
 * transaction has committed or rolled back, because what the holder wrote under it is not visible to the next
 * holder before the commit.
 *
 * <p>{@link #ofServer()} finds the server's {@code TransactionSynchronizationRegistry} through JNDI
 * ({@value #REGISTRY_JNDI_NAME}); where there is none (Tomcat, Java SE) or the JTA API is missing, releases
 * happen at once, and nothing else changes. The JTA API is not a run-time dependency of Sluice: the one class
 * naming it, {@code JtaTransactions}, is loaded only after its classes were found. Implementations are
 * thread-safe.
 */
public interface Transactions {

    /** JNDI name of the registry every Jakarta EE (and Java EE 5+) server binds for its applications. */
    String REGISTRY_JNDI_NAME = "java:comp/TransactionSynchronizationRegistry";

    /** No transactions: every release happens when its holder asks for it. */
    Transactions NONE = new Transactions() {
        @Override
        public Object current() {
            return null;
        }

        @Override
        public boolean onCompletion(Completion completion) {
            return false;
        }

        @Override
        public String toString() {
            return "no JTA transactions";
        }
    };

    /** What a holder does at the end of the transaction it waits for. Called by the transaction manager. */
    interface Completion {
        /**
         * Before the commit (not called for a rollback): whether the hold is still known to be held. When it is
         * not, the transaction is marked rollback-only, so that writes made under a lost lock are not committed.
         */
        boolean stillHeld();

        /**
         * After the transaction committed or rolled back, on whichever thread completed it (a transaction
         * timeout rolls back on the manager's own thread). Must not throw.
         */
        void completed(boolean committed);
    }

    /**
     * The transaction running on the calling thread (active, or marked rollback-only), as an identity to tell
     * one transaction from another ({@code TransactionSynchronizationRegistry.getTransactionKey()}); {@code null}
     * when there is none, or it is already completing.
     */
    Object current();

    /**
     * Has {@code completion} called when the calling thread's transaction completes.
     *
     * @return false when that was refused (no transaction, or it is already completing): release at once
     */
    boolean onCompletion(Completion completion);

    /**
     * The server's transactions, for a lock service: {@link #NONE} where the JTA API is missing; otherwise the
     * registry in JNDI, looked up now and, as long as none is found, again at most once a minute from the thread
     * that releases (a lookup on a thread without the application's naming context finds nothing).
     */
    static Transactions ofServer() {
        if (!JtaPresence.apiPresent()) {
            return NONE;
        }
        return new ServerTransactions(Transactions::lookup, System::nanoTime);
    }

    /**
     * The server's transactions when the application has a JTA registry in JNDI, else {@link #NONE}: one lookup,
     * in the calling thread's naming context.
     */
    static Transactions lookup() {
        if (!JtaPresence.apiPresent()) {
            return NONE;
        }
        Object registry;
        try {
            registry = new javax.naming.InitialContext().lookup(REGISTRY_JNDI_NAME);
        } catch (javax.naming.NamingException | RuntimeException | LinkageError e) {
            System.getLogger("dev.sluice.lock").log(Level.DEBUG, "Sluice: no JTA transaction registry at "
                    + REGISTRY_JNDI_NAME + " (" + e + "); locks and permits are released when their holder asks");
            return NONE;
        }
        return JtaPresence.over(registry);
    }
}
