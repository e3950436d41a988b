package dev.sluice.internal.lock;

import dev.sluice.DistributedLock;
import dev.sluice.DistributedSemaphore;
import dev.sluice.LockHandle;
import dev.sluice.Permit;
import dev.sluice.internal.tx.JtaTransactions;
import dev.sluice.internal.tx.Transactions;
import dev.sluice.test.Jta;
import dev.sluice.test.LogCapture;
import jakarta.transaction.RollbackException;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A lock or permit released while a JTA transaction runs on the holder's thread is released when that
 * transaction completes, on commit and on rollback, so that the next holder reads what the last one committed.
 * On a real transaction manager (Narayana) and a resource whose writes become visible only at commit.
 */
abstract class TransactionalReleaseContractTest {

    static final Duration LONG_LEASE = Duration.ofSeconds(30);
    static final Duration SHORT_LEASE = Duration.ofSeconds(3);
    static final Duration WAIT = Duration.ofSeconds(60);

    @RegisterExtension
    final LogCapture logs = new LogCapture();

    final Jta jta = Jta.narayana();
    final TransactionManager tm = jta.manager();
    final Transactions transactions = JtaTransactions.over(jta.registry());
    StoreFixture fixture;
    ExecutorService others;

    abstract StoreFixture fixture();

    @BeforeEach
    void start() {
        fixture = fixture();
        others = Executors.newCachedThreadPool();
    }

    @AfterEach
    void stop() throws Exception {
        if (tm.getStatus() != Status.STATUS_NO_TRANSACTION) {
            tm.suspend(); // a failed test's transaction; the manager times it out
        }
        others.shutdownNow();
        fixture.close();
    }

    @Test
    void twentyConcurrentTransactionsIncrementingOneRowUnderOneLockRecordTwenty() throws Exception {
        DistributedLock lock = fixture.service(transactions).lock("sale");
        Jta.Row row = new Jta.Row(20);
        int callers = 20;
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        for (int i = 0; i < callers; i++) {
            done.add(others.submit(() -> {
                go.await();
                tm.begin();
                try (LockHandle h = lock.acquire(LONG_LEASE, WAIT)) {
                    int seen = row.committed(); // deliberately not atomic: read, yield, write
                    Thread.yield();
                    row.write(tm.getTransaction(), seen + 1);
                }
                tm.commit();
                return null;
            }));
        }
        go.countDown();
        for (Future<?> f : done) {
            f.get(60, TimeUnit.SECONDS);
        }
        assertThat(row.committed()).as("sales recorded by %d callers", callers).isEqualTo(callers);
    }

    @Test
    void aLockReleasedInsideATransactionIsFreeOnlyOnceItCommits() throws Exception {
        DistributedLock lock = fixture.service(transactions).lock("commit");
        tm.begin();
        lock.acquire(LONG_LEASE, Duration.ZERO).close();
        assertThat(freeToAnotherThread(lock)).as("free before the commit").isFalse();
        tm.commit();
        assertThat(freeToAnotherThread(lock)).as("free after the commit").isTrue();
    }

    @Test
    void aLockReleasedInsideATransactionIsFreeOnlyOnceItRollsBack() throws Exception {
        DistributedLock lock = fixture.service(transactions).lock("rollback");
        Jta.Row row = new Jta.Row(0);
        tm.begin();
        try (LockHandle h = lock.acquire(LONG_LEASE, Duration.ZERO)) {
            row.write(tm.getTransaction(), 1);
        }
        assertThat(freeToAnotherThread(lock)).as("free before the rollback").isFalse();
        tm.rollback();
        assertThat(freeToAnotherThread(lock)).as("free after the rollback").isTrue();
        assertThat(row.committed()).isZero();
    }

    /**
     * Narayana (as the JTA specification allows) refuses a synchronization once a transaction is marked
     * rollback-only; nothing such a transaction wrote can be committed, so the lock is free at once.
     */
    @Test
    void aLockReleasedInARollbackOnlyTransactionIsFreeAtOnceAndNothingOfItCommits() throws Exception {
        DistributedLock lock = fixture.service(transactions).lock("doomed");
        Jta.Row row = new Jta.Row(0);
        tm.begin();
        try (LockHandle h = lock.acquire(LONG_LEASE, Duration.ZERO)) {
            row.write(tm.getTransaction(), 1);
            tm.setRollbackOnly();
        }
        assertThat(freeToAnotherThread(lock)).isTrue();
        tm.rollback();
        assertThat(row.committed()).isZero();
    }

    @Test
    void theHoldingThreadReentersALockWhoseReleaseWaitsForTheCommit() throws Exception {
        DistributedLock lock = fixture.service(transactions).lock("reenter");
        tm.begin();
        LockHandle first = lock.acquire(LONG_LEASE, Duration.ZERO);
        first.close();
        LockHandle again = lock.tryAcquire(LONG_LEASE).orElseThrow();
        assertThat(again.fencingToken()).as("the same hold").isEqualTo(first.fencingToken());
        again.close();
        assertThat(freeToAnotherThread(lock)).isFalse();
        tm.commit();
        assertThat(freeToAnotherThread(lock)).isTrue();
        try (LockHandle next = lock.acquire(LONG_LEASE, Duration.ZERO)) {
            assertThat(next.fencingToken()).isGreaterThan(first.fencingToken());
        }
    }

    @Test
    void aReentryWhileTheReleaseWaitsWaitsForTheSameCompletionRegisteredOnce() throws Exception {
        AtomicInteger registered = new AtomicInteger();
        Transactions counting = new Transactions() {
            @Override
            public Object current() {
                return transactions.current();
            }

            @Override
            public boolean onCompletion(Completion completion) {
                registered.incrementAndGet();
                return transactions.onCompletion(completion);
            }
        };
        DistributedLock lock = fixture.service(counting).lock("twice");
        tm.begin();
        for (int i = 0; i < 3; i++) {
            lock.acquire(LONG_LEASE, Duration.ZERO).close();
        }
        assertThat(registered).as("synchronizations registered for one hold and one transaction").hasValue(1);
        tm.commit();
        assertThat(freeToAnotherThread(lock)).isTrue();
    }

    @Test
    void aReleaseWaitsForAnOuterTransactionSuspendedByAnInnerOne() throws Exception {
        DistributedLock lock = fixture.service(transactions).lock("nested");
        tm.begin();
        lock.acquire(LONG_LEASE, Duration.ZERO).close();
        jakarta.transaction.Transaction outer = tm.suspend(); // as REQUIRES_NEW does
        tm.begin();
        lock.acquire(LONG_LEASE, Duration.ZERO).close();
        tm.commit();
        assertThat(freeToAnotherThread(lock)).as("free after the inner commit").isFalse();
        tm.resume(outer);
        tm.commit();
        assertThat(freeToAnotherThread(lock)).as("free after the outer commit").isTrue();
    }

    @Test
    void theLeaseIsRenewedAndTheHoldTimedUntilTheRealRelease() throws Exception {
        ManualScheduler renewals = new ManualScheduler();
        try {
            LockService service = fixture.service(renewals.watchdog(fixture.clock::nanos), transactions);
            DistributedLock lock = service.lock("renewed");
            String storeKey = service.lockKey("renewed");
            dev.sluice.internal.metrics.GuardMetrics metrics = service.metrics.lock("renewed");
            Jta.Row row = new Jta.Row(0);
            tm.begin();
            try (LockHandle h = lock.acquire(SHORT_LEASE, Duration.ZERO)) {
                row.write(tm.getTransaction(), 1);
            }
            for (int i = 0; i < 3; i++) { // three times two thirds of the lease: longer than the lease
                fixture.elapse(SHORT_LEASE.multipliedBy(2).dividedBy(3), storeKey);
                renewals.runPending();
            }
            assertThat(metrics.holds().count()).as("releases counted before the commit").isZero();
            tm.commit();
            assertThat(row.committed()).as("committed under a lease still held").isEqualTo(1);
            assertThat(metrics.holds().count()).isEqualTo(1);
            assertThat(metrics.holds().maxNanos()).as("held until after the commit")
                    .isGreaterThanOrEqualTo(SHORT_LEASE.multipliedBy(2).toNanos());
            assertThat(freeToAnotherThread(lock)).isTrue();
        } finally {
            renewals.shutdownNow();
        }
    }

    @Test
    void aQueuedThreadTakesTheLockOverWhenTheHoldersTransactionCommits() throws Exception {
        LockService service = fixture.service(transactions);
        DistributedLock lock = service.lock("queue");
        Jta.Row row = new Jta.Row(0);
        tm.begin();
        LockHandle holder = lock.acquire(LONG_LEASE, Duration.ZERO);
        row.write(tm.getTransaction(), 1);
        Future<Integer> next = others.submit(() -> {
            try (LockHandle h = lock.acquire(LONG_LEASE, WAIT)) {
                return row.committed();
            }
        });
        await().atMost(WAIT).until(() -> service.queued(service.lockKey("queue")) == 1);
        holder.close();
        tm.commit();
        assertThat(next.get(60, TimeUnit.SECONDS)).as("what the next holder reads").isEqualTo(1);
    }

    @Test
    void aTransactionTimedOutByTheManagerReleasesTheLockFromTheManagersThread() throws Exception {
        DistributedLock lock = fixture.service(transactions).lock("reaper");
        tm.setTransactionTimeout(1);
        try {
            tm.begin();
            lock.acquire(LONG_LEASE, Duration.ZERO).close();
            assertThat(freeToAnotherThread(lock)).isFalse();
            await().atMost(WAIT).until(() -> freeToAnotherThread(lock));
        } finally {
            tm.setTransactionTimeout(0);
            tm.suspend();
        }
    }

    @Test
    void aLeaseLostBeforeTheCommitRollsTheTransactionBack() throws Exception {
        LockService service = fixture.service(fixture.stalledWatchdog(), transactions);
        DistributedLock lock = service.lock("lost");
        Jta.Row row = new Jta.Row(0);
        tm.begin();
        try (LockHandle h = lock.acquire(SHORT_LEASE, Duration.ZERO)) {
            row.write(tm.getTransaction(), 1);
        }
        fixture.elapse(SHORT_LEASE.plusSeconds(1), service.lockKey("lost"));

        assertThatThrownBy(tm::commit).isInstanceOf(RollbackException.class);
        assertThat(row.committed()).as("nothing written under a lost lock is committed").isZero();
        assertThat(logs.records(java.util.logging.Level.WARNING, "dev.sluice")).as("one warning for the lost hold")
                .singleElement().satisfies(w -> assertThat(w.getMessage()).contains("lock 'lost'")
                        .contains("transaction is rolled back"));
    }

    @Test
    void aPermitWhoseLeaseIsLostBeforeTheCommitRollsTheTransactionBack() throws Exception {
        LockService service = fixture.service(fixture.stalledWatchdog(), transactions);
        DistributedSemaphore semaphore = service.semaphore("lost-permits", 2);
        Jta.Row row = new Jta.Row(0);
        tm.begin();
        try (Permit p = semaphore.acquire(SHORT_LEASE, Duration.ZERO)) {
            row.write(tm.getTransaction(), 1);
        }
        fixture.elapse(SHORT_LEASE.plusSeconds(1), service.semaphoreKey("lost-permits"));

        assertThatThrownBy(tm::commit).isInstanceOf(RollbackException.class);
        assertThat(row.committed()).isZero();
    }

    @Test
    void aTransactionThatEndsInsideTheHoldReleasesAtClose() throws Exception {
        DistributedLock lock = fixture.service(transactions).lock("inside");
        LockHandle h = lock.acquire(LONG_LEASE, Duration.ZERO);
        tm.begin();
        tm.commit();
        h.close();
        assertThat(freeToAnotherThread(lock)).isTrue();
    }

    @Test
    void withoutATransactionALockIsReleasedAtClose() throws Exception {
        for (Transactions none : List.of(transactions, Transactions.NONE)) {
            DistributedLock lock = fixture.service(none).lock("plain");
            lock.acquire(LONG_LEASE, Duration.ZERO).close();
            assertThat(freeToAnotherThread(lock)).as("with %s", none).isTrue();
        }
    }

    @Test
    void aSemaphoreNeverHasMoreUncommittedTransactionsThanPermits() throws Exception {
        int permits = 2;
        DistributedSemaphore semaphore = fixture.service(transactions).semaphore("bounded", permits);
        Jta.Row row = new Jta.Row(10);
        AtomicInteger uncommitted = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            done.add(others.submit(() -> {
                go.await();
                for (int n = 0; n < 3; n++) {
                    tm.begin();
                    try (Permit p = semaphore.acquire(LONG_LEASE, WAIT)) {
                        most.accumulateAndGet(uncommitted.incrementAndGet(), Math::max);
                        row.write(tm.getTransaction(), n, uncommitted::decrementAndGet);
                    }
                    tm.commit();
                }
                return null;
            }));
        }
        go.countDown();
        for (Future<?> f : done) {
            f.get(60, TimeUnit.SECONDS);
        }
        assertThat(most.get()).as("transactions between permit and commit at once").isLessThanOrEqualTo(permits);
    }

    @Test
    void aPermitReturnedInsideATransactionIsFreeOnlyOnceItRollsBack() throws Exception {
        DistributedSemaphore semaphore = fixture.service(transactions).semaphore("one", 1);
        tm.begin();
        semaphore.acquire(LONG_LEASE, Duration.ZERO).close();
        assertThat(freeToAnotherThread(semaphore)).isFalse();
        tm.rollback();
        assertThat(freeToAnotherThread(semaphore)).isTrue();
    }

    /** Whether a thread without a transaction gets the lock at once (and gives it back). */
    boolean freeToAnotherThread(DistributedLock lock) throws Exception {
        return others.submit(() -> {
            Optional<LockHandle> h = lock.tryAcquire(LONG_LEASE);
            h.ifPresent(LockHandle::close);
            return h.isPresent();
        }).get(60, TimeUnit.SECONDS);
    }

    boolean freeToAnotherThread(DistributedSemaphore semaphore) throws Exception {
        return others.submit(() -> {
            Optional<Permit> p = semaphore.tryAcquire(LONG_LEASE);
            p.ifPresent(Permit::close);
            return p.isPresent();
        }).get(60, TimeUnit.SECONDS);
    }
}
