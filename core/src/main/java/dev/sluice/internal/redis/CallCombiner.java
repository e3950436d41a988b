package dev.sluice.internal.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Flat combining of concurrent calls: the calling threads themselves, not a dispatcher thread, gather what
 * other threads asked for and send it as one batch. A caller enqueues its request; while fewer than
 * {@code maxSenders} callers are sending, it becomes a sender, takes up to {@code maxBatch} queued requests
 * (its own included), hands them to the {@link Sender} and completes each one's waiting caller. Otherwise it
 * parks until another sender completes its request. A caller that finds a sender slot free does not queue at
 * all, so a lone thread sends its own request at once, on its own thread.
 *
 * <p><b>No request is stranded.</b> The queue is only left non-empty with no sender active if the last sender
 * to leave saw it empty. The argument, with sequentially consistent atomics (the queue and the sender count):
 * <ul>
 * <li>A waiter enqueues first and reads the sender count afterwards. It parks only after seeing all
 *     {@code maxSenders} slots taken, so each of those senders leaves (decrements the count, then looks at
 *     the queue) after the waiter was enqueued.</li>
 * <li>A sender that leaves and finds the queue non-empty wakes the waiter at its head. That waiter, if its
 *     request is not done, takes a free slot and sends (draining from the head, so the queue shrinks), or
 *     finds every slot taken again, by senders that will themselves look at the queue when they leave. If its
 *     request is already done, the sender that took it from the queue did so after the look, is still
 *     active, and will look at the queue when it leaves.</li>
 * <li>A request is completed only after it has left the queue, and every request taken from the queue is
 *     completed: by its reply, by the failure of its batch, or (should the sender break its contract) by an
 *     {@link IllegalStateException}.</li>
 * </ul>
 * A waiter that wakes without its request being done sends for the queue when it can, so spurious wake-ups
 * are harmless. A caller that sends alone ({@link #tryAlone()}) holds a slot like any sender and leaves it the
 * same way ({@link #leaveAlone}), so the argument holds for it too; it takes nothing from the queue, which it
 * found empty.
 *
 * <p><b>Failures.</b> When the sender throws for a whole batch (the connection failed or timed out), every
 * request of the batch fails with that exception, and so do the requests queued behind it at that moment: they
 * would be sent to the same unresponsive server, and queuing them for another timeout would make a hung server
 * cost each caller several timeouts instead of one.
 *
 * <p>Thread-safe.
 *
 * @param <T> a request
 * @param <R> its reply
 */
public final class CallCombiner<T, R> {

    /** Sends one batch: completes or fails every call of it, or throws to fail them all. */
    @FunctionalInterface
    public interface Sender<T, R> {
        void send(List<Call<T, R>> batch);
    }

    /** One caller's request, waiting for its reply. Completed at most once; later completions are ignored. */
    public static final class Call<T, R> {
        private final T request;
        private final Thread caller;
        private R reply;
        private RuntimeException failure;
        private volatile boolean done;

        Call(T request, Thread caller) {
            this.request = request;
            this.caller = caller;
        }

        public T request() {
            return request;
        }

        public void complete(R value) {
            if (!done) {
                reply = value;
                finish();
            }
        }

        public void fail(RuntimeException problem) {
            if (!done) {
                failure = problem;
                finish();
            }
        }

        boolean done() {
            return done;
        }

        private void finish() {
            done = true;
            if (caller != Thread.currentThread()) {
                LockSupport.unpark(caller);
            }
        }

        private R result() {
            if (failure != null) {
                throw failure;
            }
            return reply;
        }
    }

    private final ConcurrentLinkedQueue<Call<T, R>> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger senders = new AtomicInteger();
    private final int maxSenders;
    private final int maxBatch;
    private final Sender<T, R> sender;

    /**
     * @param maxSenders how many batches may be in flight at once, {@code >= 1}
     * @param maxBatch   most requests in one batch, {@code >= 1}
     */
    public CallCombiner(int maxSenders, int maxBatch, Sender<T, R> sender) {
        if (maxSenders < 1 || maxBatch < 1) {
            throw new IllegalArgumentException("maxSenders " + maxSenders + " and maxBatch " + maxBatch
                    + " must be at least 1");
        }
        this.maxSenders = maxSenders;
        this.maxBatch = maxBatch;
        this.sender = sender;
    }

    /**
     * Sends {@code request}, alone or in a batch with other threads' requests, and returns its reply.
     *
     * @throws RuntimeException what the sender failed this request with
     */
    public R call(T request) {
        Call<T, R> call = new Call<>(request, Thread.currentThread());
        if (tryStartSending()) {
            sendAndLeave(call);
            return call.result();
        }
        queue.add(call);
        // Like a blocking socket read, the wait is not interruptible (the reply is on its way within the socket
        // timeout); the interrupt is kept for the caller, and cleared meanwhile so that park does not spin.
        boolean interrupted = false;
        while (!call.done()) {
            if (!queue.isEmpty() && tryStartSending()) {
                sendAndLeave(null);
            } else {
                LockSupport.park(this);
                interrupted |= Thread.interrupted();
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return call.result();
    }

    /**
     * Takes a sender's slot for the caller to send its one request itself, outside any batch: what a lone caller
     * does, without the {@link Call} it would otherwise wait on. Only when nobody waits in the queue (else the
     * caller should take them along: {@link #call}) and a slot is free.
     *
     * @return whether the slot was taken; if so the caller sends its request, and then must call
     *         {@link #leaveAlone} whatever happened
     */
    public boolean tryAlone() {
        return queue.isEmpty() && tryStartSending();
    }

    /**
     * Gives back the slot that {@link #tryAlone()} took, as a sender leaving a batch does. When the request failed
     * as a whole batch fails (its connection broke or timed out, or the sending threw), {@code failure} says so,
     * and the requests queued meanwhile fail with it, as they would behind a failed batch.
     *
     * @param failure what failed the lone request as a batch would fail, or null (it was answered, even with an
     *                error of its own)
     */
    public void leaveAlone(Throwable failure) {
        try {
            if (failure != null) {
                failQueued(asRuntime(failure));
            }
        } finally {
            leave();
        }
    }

    /** Requests waiting for a sender (tests). */
    int queued() {
        return queue.size();
    }

    private boolean tryStartSending() {
        for (int active = senders.get(); active < maxSenders; active = senders.get()) {
            if (senders.compareAndSet(active, active + 1)) {
                return true;
            }
        }
        return false;
    }

    /** Sends {@code own} (may be null) with what is queued, then gives up the slot and wakes the next in line. */
    private void sendAndLeave(Call<T, R> own) {
        List<Call<T, R>> batch = new ArrayList<>(own == null ? 8 : 1);
        if (own != null) {
            batch.add(own);
        }
        for (Call<T, R> next; batch.size() < maxBatch && (next = queue.poll()) != null; ) {
            batch.add(next);
        }
        try {
            if (!batch.isEmpty()) {
                send(batch);
            }
        } finally {
            leave();
        }
    }

    /** Gives up a sender's slot and wakes the first waiter, who sends for the queue if its request is not done. */
    private void leave() {
        senders.decrementAndGet();
        Call<T, R> head = queue.peek();
        if (head != null) {
            LockSupport.unpark(head.caller);
        }
    }

    private void send(List<Call<T, R>> batch) {
        try {
            sender.send(batch);
        } catch (RuntimeException | Error problem) {
            RuntimeException failure = asRuntime(problem);
            batch.forEach(c -> c.fail(failure));
            failQueued(failure);
            if (problem instanceof Error error) {
                throw error;
            }
        } finally {
            // Only the rare unanswered call gets an exception: building one (its stack trace) for every call
            // of every batch cost a lone caller several microseconds per decision.
            for (Call<T, R> call : batch) {
                if (!call.done()) {
                    call.fail(new IllegalStateException("the batch sender left a request unanswered"));
                }
            }
        }
    }

    /** Fails what is queued behind a failed batch: it would go to the same unresponsive server. */
    private void failQueued(RuntimeException failure) {
        for (Call<T, R> queued; (queued = queue.poll()) != null; ) {
            queued.fail(failure);
        }
    }

    private static RuntimeException asRuntime(Throwable problem) {
        return problem instanceof RuntimeException runtime ? runtime
                : new IllegalStateException("sending a batch failed: " + problem, problem);
    }
}
