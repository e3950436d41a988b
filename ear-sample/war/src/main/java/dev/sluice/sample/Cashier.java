package dev.sluice.sample;

import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

/**
 * Counts an attempt at the counter, then asks the {@link BoxOffice} to sell without waiting for its lock, in
 * one container-managed transaction: when the lock is taken, the {@code LockNotAcquiredException} reaches this
 * bean's caller as itself and rolls the transaction back, so the attempt is not counted either.
 *
 * <p>Thread-safe (a stateless session bean).
 */
@Stateless
public class Cashier {

    @PersistenceContext
    EntityManager entityManager;

    @Inject
    BoxOffice boxOffice;

    /**
     * Tries to sell one ticket at once.
     *
     * @throws dev.sluice.LockNotAcquiredException when the counter's lock is taken
     */
    public void sellAtOnce(String counterId) {
        entityManager.find(SaleCounter.class, counterId).attempt();
        boxOffice.sellWithoutWaiting(counterId);
    }
}
