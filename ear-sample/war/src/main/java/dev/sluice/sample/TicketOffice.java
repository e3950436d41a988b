package dev.sluice.sample;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.sluice.LockHandle;
import dev.sluice.Locked;
import dev.sluice.Sluice;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.Transactional;
import jakarta.transaction.TransactionSynchronizationRegistry;

/**
 * Sells concert tickets, one buyer at a time per concert across every node: the seed tutorials'
 * "last seat" problem.
 *
 * <p>{@link #buy} runs in a JTA transaction and under a Sluice lock. A sale is recorded when the
 * transaction commits, as a database row would become visible, so the lock must be released only
 * after the commit: released earlier, the next buyer would still see the seat as free. Sluice's
 * interceptor wraps the transaction, and {@link Concert} records evidence of it.
 *
 * <p>Thread-safe; application scoped.
 */
@ApplicationScoped
public class TicketOffice {

    /** Long enough for a commit to be caught mid-way if the lock were released before it. */
    private static final long COMMIT_MILLIS = 20;

    private final ConcurrentMap<String, Concert> concerts = new ConcurrentHashMap<>();

    @Inject
    Sluice sluice;

    @Resource
    TransactionSynchronizationRegistry transactions;

    @Resource
    ManagedExecutorService executor;

    /**
     * Sells the next seat of a concert.
     *
     * @return the seat number, or empty when the concert is sold out
     * @throws dev.sluice.LockNotAcquiredException when other buyers held the lock for longer than 30 s
     */
    @Locked(key = "concert:{0}", maxWait = "30s")
    @Transactional
    public OptionalInt buy(String concertId) {
        Concert concert = concert(concertId);
        concert.enter();
        int sold = concert.committedSales();
        if (sold >= Concert.SEATS) {
            concert.leave();
            return OptionalInt.empty();
        }
        transactions.registerInterposedSynchronization(new Synchronization() {
            @Override
            public void beforeCompletion() {
                slowCommit();
            }

            @Override
            public void afterCompletion(int status) {
                if (status == Status.STATUS_COMMITTED) {
                    concert.committed(lockHeldElsewhere(concertId));
                }
                concert.leave();
            }
        });
        return OptionalInt.of(sold + 1);
    }

    /** What {@link Concert#report()} says about a concert. */
    public String report(String concertId) {
        return concert(concertId).report();
    }

    private Concert concert(String concertId) {
        return concerts.computeIfAbsent(concertId, id -> new Concert());
    }

    /**
     * Whether another thread is kept out of the concert's lock right now. Asked from a different
     * thread because the lock is reentrant for the thread that holds it.
     */
    private boolean lockHeldElsewhere(String concertId) {
        try {
            Optional<LockHandle> probe = executor
                    .submit(() -> sluice.lock("concert:" + concertId).tryAcquire(Duration.ofSeconds(1)))
                    .get(10, TimeUnit.SECONDS);
            probe.ifPresent(LockHandle::close);
            return probe.isEmpty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while probing the lock of concert " + concertId, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not probe the lock of concert " + concertId, e);
        }
    }

    /** The commit of a real database takes a while; the sample's must too, or there is no window to observe. */
    private static void slowCommit() {
        try {
            Thread.sleep(COMMIT_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
