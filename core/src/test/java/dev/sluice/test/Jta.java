package dev.sluice.test;

import com.arjuna.ats.arjuna.common.arjPropertyManager;
import com.arjuna.ats.internal.jta.transaction.arjunacore.TransactionSynchronizationRegistryImple;
import jakarta.transaction.Transaction;
import jakarta.transaction.TransactionManager;
import jakarta.transaction.TransactionSynchronizationRegistry;

import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real JTA transaction manager for tests: Narayana, the one WildFly ships, in this JVM, with its
 * {@code TransactionSynchronizationRegistry}, and {@link Row}, a resource whose writes become visible only when
 * the transaction that made them commits, as a database row's do. Thread-safe.
 */
public final class Jta {

    private static final Jta INSTANCE = start();

    private final TransactionManager manager;
    private final TransactionSynchronizationRegistry registry;

    private Jta(TransactionManager manager, TransactionSynchronizationRegistry registry) {
        this.manager = manager;
        this.registry = registry;
    }

    /** The one manager of this JVM (Narayana's is a singleton). */
    public static Jta narayana() {
        return INSTANCE;
    }

    private static Jta start() {
        // Its log (written only for two-phase commits, which these tests never need) goes under target/.
        arjPropertyManager.getObjectStoreEnvironmentBean().setObjectStoreDir("target/narayana-object-store");
        try {
            arjPropertyManager.getCoreEnvironmentBean().setNodeIdentifier("sluice-test");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return new Jta(com.arjuna.ats.jta.TransactionManager.transactionManager(),
                new TransactionSynchronizationRegistryImple());
    }

    public TransactionManager manager() {
        return manager;
    }

    public TransactionSynchronizationRegistry registry() {
        return registry;
    }

    /**
     * One integer in a resource manager: a transaction reads the committed value and writes a new one, which
     * others see only once the transaction has committed, after a commit that takes {@code commitMillis} (a
     * database's flush and log write).
     */
    public static final class Row {
        private final AtomicInteger committed = new AtomicInteger();
        private final long commitMillis;

        public Row(long commitMillis) {
            this.commitMillis = commitMillis;
        }

        /** The value as of the last commit. */
        public int committed() {
            return committed.get();
        }

        /**
         * Writes {@code value} in {@code transaction}: applied when it commits, dropped when it rolls back.
         *
         * @param onCommitted run right after the value became visible (still inside the commit)
         */
        public void write(Transaction transaction, int value, Runnable onCommitted) throws Exception {
            transaction.enlistResource(new Write(value, onCommitted));
        }

        public void write(Transaction transaction, int value) throws Exception {
            write(transaction, value, () -> { });
        }

        /** One transaction's write, as the resource manager's branch of it. */
        private final class Write implements XAResource {
            private final int value;
            private final Runnable onCommitted;

            Write(int value, Runnable onCommitted) {
                this.value = value;
                this.onCommitted = onCommitted;
            }

            @Override
            public void commit(Xid xid, boolean onePhase) throws XAException {
                try {
                    Thread.sleep(commitMillis); // the scenario: a commit that takes time
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new XAException(XAException.XAER_RMERR);
                }
                committed.set(value);
                onCommitted.run();
            }

            @Override
            public int prepare(Xid xid) {
                return XA_OK;
            }

            @Override
            public void rollback(Xid xid) {
            }

            @Override
            public void start(Xid xid, int flags) {
            }

            @Override
            public void end(Xid xid, int flags) {
            }

            @Override
            public void forget(Xid xid) {
            }

            @Override
            public Xid[] recover(int flag) {
                return new Xid[0];
            }

            @Override
            public boolean isSameRM(XAResource other) {
                return false;
            }

            @Override
            public int getTransactionTimeout() {
                return 0;
            }

            @Override
            public boolean setTransactionTimeout(int seconds) {
                return false;
            }
        }
    }
}
