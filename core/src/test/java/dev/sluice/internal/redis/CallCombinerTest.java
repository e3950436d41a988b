package dev.sluice.internal.redis;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

class CallCombinerTest {

    /** Far above what the stress run needs; only a stranded caller (a hang) reaches it. */
    private static final Duration HANG = Duration.ofMinutes(2);

    @Test
    void aLoneCallerSendsItsOwnRequestOnItsOwnThread() {
        Thread caller = Thread.currentThread();
        AtomicReference<Thread> sentBy = new AtomicReference<>();
        CallCombiner<Integer, Integer> combiner = new CallCombiner<>(2, 64, batch -> {
            sentBy.set(Thread.currentThread());
            batch.forEach(c -> c.complete(c.request() * 2));
        });

        assertThat(combiner.call(21)).isEqualTo(42);
        assertThat(sentBy.get()).isSameAs(caller);
    }

    @Test
    void everyCallerOfAStressRunGetsItsOwnAnswer() throws Exception {
        int threads = 48;
        int callsEach = 3_000;
        AtomicInteger batches = new AtomicInteger();
        AtomicInteger largest = new AtomicInteger();
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger mostInFlight = new AtomicInteger();
        Random seeds = new Random();
        CallCombiner<Long, Long> combiner = new CallCombiner<>(2, 16, batch -> {
            mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            batches.incrementAndGet();
            largest.accumulateAndGet(batch.size(), Math::max);
            ThreadLocalRandomPause.maybe();
            // Completed in a shuffled order, some failed one by one: completion order must not matter.
            List<CallCombiner.Call<Long, Long>> shuffled = new ArrayList<>(batch);
            java.util.Collections.shuffle(shuffled);
            inFlight.decrementAndGet();
            for (CallCombiner.Call<Long, Long> call : shuffled) {
                if (call.request() % 97 == 0) {
                    call.fail(new IllegalArgumentException("refused " + call.request()));
                } else {
                    call.complete(call.request() * 3);
                }
            }
        });

        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Thread> callers = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.concurrent.atomic.AtomicBoolean running = new java.util.concurrent.atomic.AtomicBoolean(true);
        // Spurious wake-ups, which park allows: a waiter woken before its answer must neither miss it nor leave a
        // caller after it asleep.
        Thread waker = new Thread(() -> {
            Random random = new Random(seeds.nextLong());
            while (running.get()) {
                if (!callers.isEmpty()) {
                    LockSupport.unpark(callers.get(random.nextInt(callers.size())));
                }
                LockSupport.parkNanos(random.nextInt(20_000));
            }
        }, "spurious-waker");
        waker.setDaemon(true);
        waker.start();
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long seed = seeds.nextLong();
                long base = (long) t * callsEach;
                results.add(pool.submit(() -> {
                    callers.add(Thread.currentThread());
                    Random random = new Random(seed);
                    int answered = 0;
                    for (int i = 0; i < callsEach; i++) {
                        long request = base + i;
                        if (random.nextInt(4) == 0) {
                            LockSupport.parkNanos(random.nextInt(20_000));
                        }
                        if (request % 97 == 0) {
                            assertThatThrownBy(() -> combiner.call(request)).hasMessage("refused " + request);
                        } else {
                            assertThat(combiner.call(request)).isEqualTo(request * 3);
                        }
                        answered++;
                    }
                    return answered;
                }));
            }
            assertTimeoutPreemptively(HANG, () -> {
                for (Future<Integer> result : results) {
                    assertThat(result.get()).isEqualTo(callsEach);
                }
            }, "a caller was stranded in the queue");
        } finally {
            running.set(false);
            pool.shutdownNow();
        }
        assertThat(mostInFlight.get()).as("batches in flight at once").isLessThanOrEqualTo(2);
        assertThat(largest.get()).as("largest batch").isLessThanOrEqualTo(16).isGreaterThan(1);
        assertThat(batches.get()).as("batches").isLessThan(threads * callsEach);
    }

    @Test
    void aCallerQueuedBehindTheLastSenderIsSentWhenThatSenderLeavesThoughNobodyElseCalls() throws Exception {
        CountDownLatch sending = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<List<String>> batches = new java.util.concurrent.CopyOnWriteArrayList<>();
        CallCombiner<String, String> combiner = new CallCombiner<>(1, 64, batch -> {
            batches.add(batch.stream().map(CallCombiner.Call::request).toList());
            if (batches.size() == 1) {
                sending.countDown();
                await(release);
            }
            batch.forEach(c -> c.complete("ok " + c.request()));
        });
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<String> first = pool.submit(() -> combiner.call("first"));
            sending.await();
            Future<String> second = queuedAndParked(pool, combiner, "second");
            release.countDown();

            assertThat(first.get()).isEqualTo("ok first");
            assertTimeoutPreemptively(HANG, () -> assertThat(second.get()).isEqualTo("ok second"),
                    "the queued caller was stranded");
            assertThat(batches).containsExactly(List.of("first"), List.of("second"));
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void anInterruptedWaiterStillGetsItsAnswerAndKeepsTheInterrupt() throws Exception {
        CountDownLatch sending = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger sent = new AtomicInteger();
        CallCombiner<String, String> combiner = new CallCombiner<>(1, 64, batch -> {
            if (sent.incrementAndGet() == 1) {
                sending.countDown();
                await(release);
            }
            batch.forEach(c -> c.complete("ok " + c.request()));
        });
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<String> first = pool.submit(() -> combiner.call("first"));
            sending.await();
            AtomicReference<Thread> waiter = new AtomicReference<>();
            Future<String> second = pool.submit(() -> {
                waiter.set(Thread.currentThread());
                String reply = combiner.call("second");
                return reply + (Thread.currentThread().isInterrupted() ? ", interrupted" : "");
            });
            awaitQueued(combiner, 1);
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30))
                    .until(() -> waiter.get().getState() == Thread.State.WAITING);
            waiter.get().interrupt();
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30))
                    .until(() -> waiter.get().getState() == Thread.State.WAITING);
            release.countDown();

            assertThat(first.get()).isEqualTo("ok first");
            assertThat(second.get()).isEqualTo("ok second, interrupted");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aFailedBatchFailsTheCallersQueuedBehindItButNotLaterOnes() throws Exception {
        CountDownLatch sending = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger sent = new AtomicInteger();
        CallCombiner<String, String> combiner = new CallCombiner<>(1, 64, batch -> {
            if (sent.incrementAndGet() == 1) {
                sending.countDown();
                await(release);
                throw new IllegalStateException("connection timed out");
            }
            batch.forEach(c -> c.complete("ok " + c.request()));
        });
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            Future<String> first = pool.submit(() -> combiner.call("first"));
            sending.await();
            List<Future<String>> queued = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                String name = "queued " + i;
                queued.add(pool.submit(() -> combiner.call(name)));
            }
            awaitQueued(combiner, 3);
            release.countDown();

            assertThatThrownBy(first::get).hasRootCauseMessage("connection timed out");
            for (Future<String> q : queued) {
                assertThatThrownBy(q::get).hasRootCauseMessage("connection timed out");
            }
            assertThat(sent.get()).as("batches sent: the queued callers were not sent into the timeout again")
                    .isEqualTo(1);
            assertThat(combiner.call("later")).isEqualTo("ok later");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aLoneCallerTakesASlotOnlyWhenOneIsFree() {
        CallCombiner<String, String> combiner = new CallCombiner<>(1, 64, batch -> { });

        assertThat(combiner.tryAlone()).isTrue();
        assertThat(combiner.tryAlone()).as("the one slot is taken").isFalse();
        combiner.leaveAlone(null);
        assertThat(combiner.tryAlone()).as("given back").isTrue();
        combiner.leaveAlone(null);

        CallCombiner<String, String> twoSlots = new CallCombiner<>(2, 64, batch -> { });
        assertThat(twoSlots.tryAlone()).isTrue();
        assertThat(twoSlots.tryAlone()).as("a second slot").isTrue();
        assertThat(twoSlots.tryAlone()).as("both taken").isFalse();
    }

    @Test
    void aCallerQueuedBehindALoneSenderIsSentWhenItLeaves() throws Exception {
        List<List<String>> batches = new java.util.concurrent.CopyOnWriteArrayList<>();
        CallCombiner<String, String> combiner = new CallCombiner<>(1, 64, batch -> {
            batches.add(batch.stream().map(CallCombiner.Call::request).toList());
            batch.forEach(c -> c.complete("ok " + c.request()));
        });
        assertThat(combiner.tryAlone()).isTrue();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<String> queued = queuedAndParked(pool, combiner, "queued");

            combiner.leaveAlone(null);

            assertTimeoutPreemptively(HANG, () -> assertThat(queued.get()).isEqualTo("ok queued"),
                    "the caller queued behind a lone sender was stranded");
            assertThat(batches).containsExactly(List.of("queued"));
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aLoneCallThatFailsAsABatchFailsTheCallersQueuedBehindIt() throws Exception {
        AtomicInteger sent = new AtomicInteger();
        CallCombiner<String, String> combiner = new CallCombiner<>(1, 64, batch -> {
            sent.incrementAndGet();
            batch.forEach(c -> c.complete("ok " + c.request()));
        });
        assertThat(combiner.tryAlone()).isTrue();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            List<Future<String>> queued = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                String name = "queued " + i;
                queued.add(pool.submit(() -> combiner.call(name)));
            }
            awaitQueued(combiner, 3);

            combiner.leaveAlone(new IllegalStateException("connection timed out"));

            for (Future<String> q : queued) {
                assertThatThrownBy(q::get).hasRootCauseMessage("connection timed out");
            }
            assertThat(sent.get()).as("the queued callers were not sent into the timeout").isZero();
            assertThat(combiner.call("later")).isEqualTo("ok later");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theCallersQueuedBehindAFailedBatchGetItsVeryExceptionAndAnErrorReachesThemAsAnIllegalStateException()
            throws Exception {
        RuntimeException timedOut = new IllegalStateException("connection timed out");
        AssertionError broken = new AssertionError("sender broke");
        for (Throwable failure : List.of(timedOut, broken)) {
            CountDownLatch sending = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            CallCombiner<String, String> combiner = new CallCombiner<>(1, 64, batch -> {
                sending.countDown();
                await(release);
                if (failure instanceof Error error) {
                    throw error;
                }
                throw (RuntimeException) failure;
            });
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                Future<String> first = pool.submit(() -> combiner.call("first"));
                sending.await();
                Future<String> queued = pool.submit(() -> combiner.call("queued"));
                awaitQueued(combiner, 1);
                release.countDown();

                assertThatThrownBy(first::get).cause().isSameAs(failure);
                if (failure == timedOut) {
                    assertThatThrownBy(queued::get).cause().isSameAs(timedOut);
                } else {
                    assertThatThrownBy(queued::get).cause().isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("sender broke").cause().isSameAs(broken);
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @Test
    void batchesOfOneAndOneSenderAreAllowedButNoneOfZero() {
        CallCombiner<Integer, Integer> smallest = new CallCombiner<>(1, 1, batch -> {
            assertThat(batch).hasSize(1);
            batch.forEach(c -> c.complete(c.request() + 1));
        });

        assertThat(smallest.call(1)).isEqualTo(2);
        assertThatThrownBy(() -> new CallCombiner<Integer, Integer>(0, 1, batch -> { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxSenders 0");
        assertThatThrownBy(() -> new CallCombiner<Integer, Integer>(1, 0, batch -> { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxBatch 0");
    }

    @Test
    void aSenderThatLeavesARequestUnansweredFailsItInsteadOfStrandingIt() {
        CallCombiner<String, String> combiner = new CallCombiner<>(1, 64, batch -> {
        });

        assertThatThrownBy(() -> combiner.call("forgotten")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("unanswered");
    }

    /** {@code request} called on {@code pool}, once it waits in the queue, parked. */
    private static Future<String> queuedAndParked(ExecutorService pool, CallCombiner<String, String> combiner,
            String request) {
        AtomicReference<Thread> waiter = new AtomicReference<>();
        Future<String> reply = pool.submit(() -> {
            waiter.set(Thread.currentThread());
            return combiner.call(request);
        });
        awaitQueued(combiner, 1);
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30))
                .until(() -> waiter.get().getState() == Thread.State.WAITING);
        return reply;
    }

    private static void awaitQueued(CallCombiner<?, ?> combiner, int count) {
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> combiner.queued() == count);
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(30, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Holds a sender a little now and then, so that queues build up and drain in many interleavings. */
    private static final class ThreadLocalRandomPause {
        static void maybe() {
            java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
            if (random.nextInt(3) == 0) {
                LockSupport.parkNanos(random.nextInt(50_000));
            } else if (random.nextBoolean()) {
                Thread.yield();
            }
        }
    }
}
