package dev.sluice.internal.lock;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The local queue of waiters of one key, step by step on one thread (for a semaphore and for a lock), and the race
 * of a waiter giving up against a holder taking it out, on two threads.
 */
class WaitQueueTest {

    private final WaitQueue semaphore = new WaitQueue(false);
    private final WaitQueue lock = new WaitQueue(true);

    private static WaitQueue.Waiter waiter() {
        return new WaitQueue.Waiter(null);
    }

    /** A waiter that tried the store at once, was refused and so took the turn. */
    private static WaitQueue.Waiter contender(WaitQueue queue) {
        WaitQueue.Waiter contender = waiter();
        assertThat(queue.arrive(contender)).isTrue();
        queue.refused(contender);
        assertThat(queue.hasTurn(contender)).isTrue();
        return contender;
    }

    @Test
    void callersTryTheStoreAtOnceUntilOneIsRefusedThenQueueBehindIt() {
        WaitQueue.Waiter first = waiter();
        WaitQueue.Waiter second = waiter();
        assertThat(semaphore.arrive(first)).isTrue();
        assertThat(semaphore.arrive(second)).isTrue(); // nobody waits yet: both try side by side

        semaphore.refused(first);
        assertThat(semaphore.hasTurn(first)).isTrue();
        WaitQueue.Waiter third = waiter();
        assertThat(semaphore.arrive(third)).isFalse();
        semaphore.refused(second); // another has the turn: queued again, behind it and before everybody else
        assertThat(semaphore.hasTurn(second)).isFalse();
        assertThat(semaphore.waiting()).isEqualTo(3);
        WaitQueue.Waiter holder = waiter();
        assertThat(semaphore.claimNext(holder)).isSameAs(first);
        assertThat(semaphore.claimNext(holder)).isSameAs(second);
        assertThat(semaphore.claimNext(holder)).isSameAs(third);
        assertThat(semaphore.claimNext(holder)).isNull();
    }

    @Test
    void aReturningHolderLeavesItsPermitToTheWaiterWithTheTurnWhileItsStoreCallIsUnderWay() {
        WaitQueue.Waiter contender = contender(semaphore);
        WaitQueue.Waiter queued = waiter();
        semaphore.arrive(queued);

        // The contender arrived first: handing the permit to the thread queued behind it would serve a later
        // arrival first. The holder returns it plainly; the contender's attempt, or its next one once the return
        // is signalled, takes it.
        assertThat(semaphore.toStore(contender)).isTrue();
        assertThat(semaphore.claimNext(waiter())).isNull();
        assertThat(semaphore.withdraw(queued)).as("still queued").isTrue();
    }

    @Test
    void aContenderTakenOutCannotGoToTheStoreAndIsToldOnceByTheHolder() {
        WaitQueue.Waiter contender = contender(semaphore);
        assertThat(semaphore.claimNext(waiter())).isSameAs(contender);

        assertThat(semaphore.toStore(contender)).isFalse();
        assertThat(semaphore.withdraw(contender)).isFalse();
        semaphore.resolve(contender, WaitQueue.Outcome.granted(0, 42));
        semaphore.resolve(contender, WaitQueue.Outcome.CONTEND); // the holder's finally: no effect once told
        assertThat(contender.awaitOutcome()).isEqualTo(WaitQueue.Outcome.granted(0, 42));
    }

    @Test
    void whenTheContenderLeavesTheFirstQueuedThreadTakesTheTurnFromWhereItsAttemptsLeftOff() {
        WaitQueue.Waiter contender = waiter();
        WaitQueue.Waiter next = waiter();
        WaitQueue.Waiter last = waiter();
        semaphore.arrive(contender);
        contender.releasesSeen = 7;
        semaphore.refused(contender);
        semaphore.arrive(next);
        semaphore.arrive(last);
        assertThat(semaphore.toStore(contender)).isTrue();

        semaphore.granted(contender);

        assertThat(semaphore.hasTurn(next)).isTrue();
        assertThat(next.releasesSeen).isEqualTo(7);
        assertThat(semaphore.hasTurn(last)).isFalse();
        assertThat(semaphore.waiting()).isEqualTo(2);
        assertThat(semaphore.claimNext(waiter())).isSameAs(next);
        semaphore.granted(next); // handed a permit: the turn goes on
        assertThat(semaphore.hasTurn(last)).isTrue();
    }

    @Test
    void aQueuedThreadWithdrawsUnlessTakenOutAndOneTakenOutIsNeverLeftUntold() {
        WaitQueue.Waiter contender = contender(semaphore);
        WaitQueue.Waiter leaving = waiter();
        WaitQueue.Waiter claimed = waiter();
        semaphore.arrive(leaving);
        semaphore.arrive(claimed);
        assertThat(semaphore.claimNext(waiter())).isSameAs(contender); // one holder returns to the contender
        semaphore.resolve(contender, WaitQueue.Outcome.granted(0, 1));

        assertThat(semaphore.withdraw(leaving)).isTrue();
        semaphore.leave(leaving);
        assertThat(semaphore.claimNext(waiter())).isSameAs(claimed); // another to the queue
        assertThat(semaphore.withdraw(claimed)).isFalse();
        semaphore.resolve(claimed, WaitQueue.Outcome.CONTEND);
        semaphore.resolve(claimed, WaitQueue.Outcome.granted(0, 1)); // too late: it was sent to try the store
        assertThat(claimed.awaitOutcome()).isEqualTo(WaitQueue.Outcome.CONTEND);
        semaphore.granted(contender);
        assertThat(semaphore.waiting()).isZero();
        assertThat(semaphore.arrive(waiter())).isTrue();
    }

    @Test
    void aWaiterSentToContendAndRefusedAgainWaitsToBeToldAnew() {
        WaitQueue.Waiter contender = contender(semaphore);
        WaitQueue.Waiter queued = waiter();
        semaphore.arrive(queued);
        semaphore.toStore(contender);
        semaphore.granted(contender);
        assertThat(semaphore.claimNext(waiter())).isSameAs(queued);
        semaphore.resolve(queued, WaitQueue.Outcome.CONTEND);

        semaphore.refused(queued);

        assertThat(queued.outcome()).isNull();
        assertThat(semaphore.claimNext(waiter())).isSameAs(queued);
        semaphore.resolve(queued, WaitQueue.Outcome.granted(0, 5));
        assertThat(queued.outcome()).isEqualTo(WaitQueue.Outcome.granted(0, 5));
    }

    @Test
    void aContenderSentToContendKeepsLaterReturnsFromServingThoseBehindItWhileItsCallIsUnderWay() {
        WaitQueue.Waiter contender = contender(semaphore);
        WaitQueue.Waiter second = waiter();
        WaitQueue.Waiter third = waiter();
        semaphore.arrive(second);
        semaphore.arrive(third);
        assertThat(semaphore.claimNext(waiter())).isSameAs(contender);
        assertThat(semaphore.claimNext(waiter())).isSameAs(second);

        semaphore.resolve(second, WaitQueue.Outcome.CONTEND); // not the turn: its own attempt blocks nobody
        assertThat(semaphore.claimNext(waiter())).as("the contender's hand-over is not under way yet")
                .isSameAs(third);
        semaphore.resolve(contender, WaitQueue.Outcome.CONTEND);
        semaphore.refused(second);

        assertThat(semaphore.claimNext(waiter())).as("the contender's own attempt is").isNull();
        assertThat(semaphore.withdraw(second)).as("queued again").isTrue();
    }

    @Test
    void aWaiterInterruptedWhileAwaitingItsOutcomeStillGetsItAndKeepsTheInterrupt() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            WaitQueue.Waiter holder = waiter();
            lock.arrive(holder);
            lock.granted(holder);
            AtomicReference<Thread> thread = new AtomicReference<>();
            CountDownLatch queued = new CountDownLatch(1);
            Future<Boolean> interrupted = pool.submit(() -> {
                WaitQueue.Waiter self = waiter();
                thread.set(Thread.currentThread());
                lock.arrive(self);
                queued.countDown();
                assertThat(self.awaitOutcome()).isEqualTo(WaitQueue.Outcome.granted(9, 0));
                return Thread.currentThread().isInterrupted();
            });
            queued.await();
            WaitQueue.Waiter next = lock.claimNext(holder);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> thread.get().getState() == Thread.State.WAITING);
            thread.get().interrupt();
            lock.resolve(next, WaitQueue.Outcome.granted(9, 0));

            assertThat(interrupted.get(10, TimeUnit.SECONDS)).isTrue();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aLockCallerQueuesWithoutAStoreCallWhileAThreadOfItsJvmHoldsOrContends() {
        WaitQueue.Waiter holder = waiter();
        WaitQueue.Waiter second = waiter();
        WaitQueue.Waiter third = waiter();
        assertThat(lock.arrive(holder)).as("takes the turn").isTrue();
        assertThat(lock.arrive(second)).isFalse();
        assertThat(lock.arrive(third)).isFalse();
        lock.granted(holder);
        assertThat(lock.queued()).isEqualTo(2);

        assertThat(lock.claimNext(holder)).as("in arrival order").isSameAs(second);
        assertThat(lock.hasTurn(second)).as("the turn goes with the lock").isTrue();
        lock.resolve(second, WaitQueue.Outcome.granted(3, 0));
        lock.granted(second);
        assertThat(lock.hasTurn(second)).as("kept while held").isTrue();
        assertThat(lock.claimNext(second)).isSameAs(third);
        lock.resolve(third, WaitQueue.Outcome.CONTEND); // another node waits: third contends, with the turn
        assertThat(lock.arrive(waiter())).isFalse();
    }

    @Test
    void aLockHolderReleasingWithNobodyTakenOutPassesItsTurnToWhoeverQueuedMeanwhileToTryAtOnce() {
        WaitQueue.Waiter holder = waiter();
        lock.arrive(holder);
        lock.granted(holder);
        assertThat(lock.claimNext(holder)).isNull();
        WaitQueue.Waiter late = waiter();
        assertThat(lock.arrive(late)).as("the holder still has the turn until its release is done").isFalse();

        lock.released(holder);

        assertThat(lock.hasTurn(late)).isTrue();
        assertThat(late.releasesSeen).isEqualTo(WaitQueue.ANY_RELEASE);
        lock.leave(late);
        assertThat(lock.waiting()).isZero();
        assertThat(lock.arrive(waiter())).isTrue();
    }

    @Test
    void aLockContenderRefusedByAnotherNodeWaitsFirstInLineAndIsNotCountedAsQueued() {
        WaitQueue.Waiter contender = waiter();
        WaitQueue.Waiter behind = waiter();
        lock.arrive(contender);
        contender.releasesSeen = 11;
        lock.refused(contender);
        lock.arrive(behind);
        assertThat(lock.queued()).isEqualTo(1);
        assertThat(lock.waiting()).isEqualTo(2);

        assertThat(lock.withdraw(contender)).as("out of time").isTrue();
        lock.leave(contender);

        assertThat(lock.hasTurn(behind)).isTrue();
        assertThat(behind.releasesSeen).isEqualTo(11);
        assertThat(lock.queued()).isZero();
    }

    @Test
    void aWaiterGivingUpWhileAHolderTakesItOutEitherLeavesOrIsToldNeverBoth() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 500; round++) {
                WaitQueue queue = new WaitQueue(true);
                WaitQueue.Waiter holder = waiter();
                queue.arrive(holder);
                queue.granted(holder);
                CyclicBarrier start = new CyclicBarrier(2);
                Future<WaitQueue.Waiter> waiting = pool.submit(() -> {
                    WaitQueue.Waiter self = waiter();
                    queue.arrive(self);
                    start.await();
                    if (queue.withdraw(self)) {
                        queue.leave(self);
                        return null;
                    }
                    self.awaitOutcome(); // taken out: told within the holder's call
                    return self;
                });
                Future<WaitQueue.Waiter> claiming = pool.submit(() -> {
                    start.await(); // the waiter is queued by now
                    WaitQueue.Waiter next = queue.claimNext(holder);
                    if (next == null) {
                        queue.released(holder);
                    } else {
                        queue.resolve(next, WaitQueue.Outcome.CONTEND);
                    }
                    return next;
                });
                WaitQueue.Waiter told = waiting.get(10, TimeUnit.SECONDS);
                WaitQueue.Waiter claimed = claiming.get(10, TimeUnit.SECONDS);
                assertThat(told).as("round " + round).isSameAs(claimed);
                if (claimed != null) {
                    assertThat(claimed.outcome()).isEqualTo(WaitQueue.Outcome.CONTEND);
                    assertThat(queue.hasTurn(claimed)).as("the turn went with the claim").isTrue();
                } else {
                    assertThat(queue.waiting()).as("nobody left with the turn").isZero();
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
