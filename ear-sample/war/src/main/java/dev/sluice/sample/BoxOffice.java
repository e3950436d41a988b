package dev.sluice.sample;

import dev.sluice.Bounded;
import dev.sluice.Locked;
import jakarta.annotation.Resource;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.TransactionSynchronizationRegistry;

/**
 * The box office as legacy EE code writes it: a {@code @Stateless} session bean whose container-managed
 * transaction writes through JPA to the server's default datasource, with Sluice's annotations on its business
 * methods. The container begins the transaction before any CDI interceptor runs and commits it after they all
 * returned, so the lock and the permits must be kept until the transaction completes: released at the method's
 * return, the next caller would read the counter before the previous sale is committed, and a sale would be
 * lost. {@link TransactionWitness} records how many transactions were inside at once.
 *
 * <p>Thread-safe (a stateless session bean).
 */
@Stateless
public class BoxOffice {

    @PersistenceContext
    EntityManager entityManager;

    @Resource
    TransactionSynchronizationRegistry transactions;

    @Resource
    SessionContext session;

    @Inject
    TransactionWitness witness;

    /** Opens a counter with nothing sold. */
    public void open(String counterId) {
        entityManager.persist(new SaleCounter(counterId));
    }

    /**
     * Sells one ticket at the counter: reads its row, increments it, commits; with {@code rollBack}, the
     * transaction is rolled back instead, which must release the lock as well.
     *
     * @throws dev.sluice.LockNotAcquiredException when other sales held the lock for longer than 60 s
     */
    @Locked(key = "box-office:{0}", maxWait = "60s")
    public void sell(String counterId, boolean rollBack) {
        int entered = witness.enter("sell:" + counterId, transactions);
        SaleCounter counter = entityManager.find(SaleCounter.class, counterId);
        witness.committedSeen("sell:" + counterId, entered, counter.sold());
        counter.sell();
        if (rollBack) {
            witness.rollingBack("sell:" + counterId);
            session.setRollbackOnly();
        }
    }

    /**
     * Sells one ticket only if nobody holds the counter's lock right now.
     *
     * @throws dev.sluice.LockNotAcquiredException at once when the lock is taken
     */
    @Locked(key = "box-office:{0}", maxWait = "0s")
    public void sellWithoutWaiting(String counterId) {
        entityManager.find(SaleCounter.class, counterId).sell();
    }

    /**
     * Prints a receipt (a new row), two at a time at most across the cluster.
     *
     * @throws dev.sluice.PermitNotAcquiredException when no permit came free within 60 s
     */
    @Bounded(value = "box-office-receipts", permits = 2, maxWait = "60s")
    public void printReceipt(String counterId) {
        int entered = witness.enter("receipts:" + counterId, transactions);
        witness.committedSeen("receipts:" + counterId, entered, receipts(counterId));
        entityManager.persist(new Receipt(counterId));
    }

    /** A line-per-fact report of the counter, read from the database in a new transaction. */
    public String report(String counterId) {
        SaleCounter counter = entityManager.find(SaleCounter.class, counterId);
        long receipts = receipts(counterId);
        return "sold=" + (counter == null ? 0 : counter.sold()) + "\n"
                + "attempts=" + (counter == null ? 0 : counter.attempts()) + "\n"
                + "receipts=" + receipts + "\n"
                + "mostSalesAtOnce=" + witness.mostAtOnce("sell:" + counterId) + "\n"
                + "mostReceiptsAtOnce=" + witness.mostAtOnce("receipts:" + counterId) + "\n";
    }

    private long receipts(String counterId) {
        return entityManager.createQuery("select count(r) from Receipt r where r.counterId = :counter", Long.class)
                .setParameter("counter", counterId).getSingleResult();
    }
}
