package dev.sluice.internal.lock;

import dev.sluice.StoreUnavailableException;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Locks over N independent Redis masters (Redlock): a lock is held when a majority granted it within its
 * validity, the lease minus the time the attempt took minus an allowance for clock drift between the
 * masters ({@code lease * 1% + 2 ms}). Every master runs the same scripts as {@link RedisLockStore}; the
 * calls go to all masters in parallel, and a failed attempt is undone on all of them.
 *
 * <p>Waiting: every operation has one deadline, the Redis command timeout from its start, and returns as soon as
 * the answers so far decide it (a majority agreed, or too few masters are left to make one), so one hung master
 * costs nothing while the others answer. Each master has its own threads (at most {@link #MAX_CALLS_PER_MASTER}
 * calls in flight; more would only queue on its connection pool): calls stuck on a hung master cannot hold up the
 * calls to the others, and a master whose threads are all stuck counts as unreachable at once.
 *
 * <p>Each attempt is known to the masters by its own owner token (the caller's owner plus an attempt number), and
 * a held lock is renewed and released under the token of the attempt that got it. A failed attempt is undone on
 * every master, also on one whose answer is still on the way (once it arrives); with one token per attempt such a
 * late undo can never delete the lock a later attempt of the same caller was granted there.
 *
 * <p>Fencing tokens: the token is the highest one the granting masters issued, written back to them
 * ({@code lock-fence.lua}) before the lock counts as acquired, so every later majority, which shares a
 * master with this one, issues a higher token. That holds as long as no master loses its counter while
 * being part of the overlap (a restart without persistence); the Redis-clock floor of the token covers most
 * of that case too. See docs/locks-and-semaphores.md. The validity is checked again after the write-back.
 *
 * <p>Masters that cannot be reached count as refusals; when so many are unreachable that no majority can
 * answer, the attempt fails with {@link StoreUnavailableException} (the caller fails closed). Thread-safe.
 */
public final class RedlockStore implements LockStore {

    /** Calls in flight to one master, at most: its connection pool's default size. */
    static final int MAX_CALLS_PER_MASTER = 64;
    private static final long IDLE_THREAD_SECONDS = 30;
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final List<Master> masters;
    private final int quorum;
    private final long timeoutNanos;
    private final AtomicLong attempts = new AtomicLong();
    /** The owner token each held lock has at the masters, by {@code key + owner}; see the class comment. */
    private final Map<String, String> heldAs = new ConcurrentHashMap<>();

    /** Writes a fencing token back to one master. */
    @FunctionalInterface
    public interface FenceWriter {
        void raise(String fenceKey, long token);
    }

    private record Master(int index, LockStore store, FenceWriter fence, ThreadPoolExecutor calls) {
    }

    /**
     * @param masters           one store per independent master, in configuration order
     * @param fences            the fence write-back of each master, same order
     * @param callTimeoutMillis the deadline of each operation (the Redis command timeout)
     */
    public RedlockStore(List<LockStore> masters, List<FenceWriter> fences, long callTimeoutMillis) {
        if (masters.size() < 3 || masters.size() != fences.size()) {
            throw new IllegalArgumentException("Redlock needs at least 3 masters, each with its fence writer");
        }
        List<Master> all = new ArrayList<>();
        for (int i = 0; i < masters.size(); i++) {
            all.add(new Master(i, masters.get(i), fences.get(i), executor(i)));
        }
        this.masters = List.copyOf(all);
        this.quorum = masters.size() / 2 + 1;
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(callTimeoutMillis);
    }

    /** No queue: a call either gets a thread of its master now or is refused, counting as that master failing. */
    private static ThreadPoolExecutor executor(int master) {
        ThreadPoolExecutor executor = new ThreadPoolExecutor(0, MAX_CALLS_PER_MASTER, IDLE_THREAD_SECONDS,
                TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
                    Thread t = new Thread(r, "sluice-redlock-" + master + "-" + THREADS.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        return executor;
    }

    /** The drift allowance of Redlock: 1% of the lease plus 2 ms for the granularity of expiry. */
    static long driftMillis(long leaseMillis) {
        return leaseMillis / 100 + 2;
    }

    @Override
    public long validityMillis(long leaseMillis) {
        return leaseMillis - driftMillis(leaseMillis);
    }

    @Override
    public Attempt tryLock(String key, String owner, long leaseMillis) {
        long started = System.nanoTime();
        long deadline = started + timeoutNanos;
        String attemptOwner = owner + "." + attempts.incrementAndGet();
        Votes<Attempt> votes = vote(masters, m -> m.store.tryLock(key, attemptOwner, leaseMillis),
                (m, a) -> a.acquired(), deadline);
        if (votes.yes() >= quorum && withinValidity(started, leaseMillis)) {
            List<Master> granting = votes.yesMasters();
            long token = granting.stream().mapToLong(m -> votes.value(m).fencingToken()).max().orElseThrow();
            Votes<Boolean> written = vote(granting, m -> {
                m.fence.raise(key + ":fence", token);
                return true;
            }, (m, ok) -> ok, deadline);
            // Checked again: the write-back took time out of the same validity.
            if (written.yes() >= quorum && withinValidity(started, leaseMillis)) {
                heldAs.put(holdKey(key, owner), attemptOwner);
                return Attempt.granted(token);
            }
        }
        undo(votes, key, attemptOwner, deadline);
        int unreachable = votes.unreachable();
        if (masters.size() - unreachable < quorum) {
            throw new StoreUnavailableException(unreachable + " of " + masters.size()
                    + " Redlock masters are unreachable; no majority of " + quorum + " can grant the lock",
                    votes.firstFailure());
        }
        // Held elsewhere, or we lost the race to a split vote: try again soon, with some spread.
        long hint = votes.answered().stream().filter(a -> !a.acquired()).mapToLong(Attempt::retryHintMillis).min()
                .orElse(1);
        return Attempt.refused(Math.max(1, hint));
    }

    private boolean withinValidity(long startedNanos, long leaseMillis) {
        return System.nanoTime() - startedNanos < TimeUnit.MILLISECONDS.toNanos(validityMillis(leaseMillis));
    }

    /**
     * Deletes the failed attempt's lock on every master; where its answer is still on the way, once it arrives, so
     * that a late grant does not block others for a lease. Waits for the undos on the masters that answered (until
     * {@code deadline}), so that the caller's next attempt does not find its own last one there.
     */
    private void undo(Votes<Attempt> votes, String key, String attemptOwner, long deadline) {
        List<CompletableFuture<Void>> answeredUndos = new ArrayList<>();
        for (Master m : masters) {
            boolean answered = votes.answeredBy(m);
            CompletableFuture<Void> undone = votes.call(m).handle((answer, failure) -> null)
                    .thenCompose(ignored -> CompletableFuture.runAsync(() -> m.store.unlock(key, attemptOwner),
                            m.calls));
            if (answered) {
                answeredUndos.add(undone);
            }
        }
        for (CompletableFuture<Void> undone : answeredUndos) {
            try {
                undone.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception failedOrLate) {
                // The lease removes it.
            }
        }
    }

    private static String holdKey(String key, String owner) {
        return key + '\u0000' + owner;
    }

    /** The owner token the masters know a held lock by; {@code owner} itself when not held through this store. */
    private String attemptOwner(String key, String owner) {
        return heldAs.getOrDefault(holdKey(key, owner), owner);
    }

    /** Release and refuse: this store does not know which instance a waiter belongs to. */
    @Override
    public Handover handOver(String key, String holder, String next, long leaseMillis) {
        return LockStore.releaseAndRefuse(this, key, holder);
    }

    @Override
    public boolean unlock(String key, String owner) {
        String attemptOwner = attemptOwner(key, owner);
        heldAs.remove(holdKey(key, owner));
        Votes<Boolean> votes = vote(masters, m -> m.store.unlock(key, attemptOwner), (m, released) -> released,
                System.nanoTime() + timeoutNanos);
        return votes.yes() >= quorum;
    }

    @Override
    public boolean extend(String key, String owner, long leaseMillis) {
        long started = System.nanoTime();
        String attemptOwner = attemptOwner(key, owner);
        Votes<Boolean> votes = vote(masters, m -> m.store.extend(key, attemptOwner, leaseMillis),
                (m, extended) -> extended, started + timeoutNanos);
        if (votes.yes() >= quorum && withinValidity(started, leaseMillis)) {
            return true;
        }
        if (votes.no() > masters.size() - quorum) {
            // A majority says we no longer own it: the lease is gone for good.
            heldAs.remove(holdKey(key, owner));
            return false;
        }
        throw new StoreUnavailableException("only " + votes.yes() + " of " + masters.size()
                + " Redlock masters confirmed the renewal of " + key + " in time", votes.firstFailure());
    }

    /**
     * Calls {@code call} on each of {@code asked}, each on its master's threads, and waits until a majority of all
     * masters said yes, too few remain to make one, every master answered, or {@code deadline}.
     */
    private <T> Votes<T> vote(List<Master> asked, Function<Master, T> call, YesIf<T> yesIf, long deadline) {
        Votes<T> votes = new Votes<>(asked, yesIf);
        for (Master m : asked) {
            CompletableFuture<T> future;
            try {
                future = CompletableFuture.supplyAsync(() -> call.apply(m), m.calls);
            } catch (RejectedExecutionException busy) {
                future = CompletableFuture.failedFuture(new StoreUnavailableException("Redlock master " + m.index
                        + " has " + MAX_CALLS_PER_MASTER + " calls in flight; it is not answering", busy));
            }
            votes.add(m, future);
        }
        votes.await(quorum, deadline);
        return votes;
    }

    @FunctionalInterface
    private interface YesIf<T> {
        boolean test(Master master, T answer);
    }

    /** The answers of one round of calls, as they arrive. Answers and failures are guarded by its own monitor. */
    private static final class Votes<T> {
        private final List<Master> asked;
        private final YesIf<T> yesIf;
        private final Map<Integer, CompletableFuture<T>> calls = new ConcurrentHashMap<>();
        private final Map<Integer, T> answers = new HashMap<>();
        private final Map<Integer, Throwable> failures = new HashMap<>();
        private boolean deadlinePassed;

        Votes(List<Master> asked, YesIf<T> yesIf) {
            this.asked = asked;
            this.yesIf = yesIf;
        }

        void add(Master m, CompletableFuture<T> call) {
            calls.put(m.index, call);
            call.whenComplete((answer, failure) -> {
                synchronized (this) {
                    if (failure != null) {
                        failures.put(m.index, failure instanceof CompletionException
                                && failure.getCause() != null ? failure.getCause() : failure);
                    } else {
                        answers.put(m.index, answer);
                    }
                    notifyAll();
                }
            });
        }

        /** Waits until the answers decide a vote needing {@code quorum} yeses, or until {@code deadline}. */
        synchronized void await(int quorum, long deadline) {
            while (yes() < quorum && yes() + pending() >= quorum && pending() > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    deadlinePassed = true;
                    return;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }

        synchronized int yes() {
            return yesMasters().size();
        }

        synchronized int no() {
            return answers.size() - yes();
        }

        synchronized int pending() {
            return asked.size() - answers.size() - failures.size();
        }

        /** Masters that failed, and those that had not answered by the deadline. */
        synchronized int unreachable() {
            return failures.size() + (deadlinePassed ? pending() : 0);
        }

        synchronized List<Master> yesMasters() {
            List<Master> yes = new ArrayList<>();
            for (Master m : asked) {
                T answer = answers.get(m.index);
                if (answer != null && yesIf.test(m, answer)) {
                    yes.add(m);
                }
            }
            return yes;
        }

        synchronized List<T> answered() {
            return List.copyOf(answers.values());
        }

        synchronized boolean answeredBy(Master m) {
            return answers.containsKey(m.index) || failures.containsKey(m.index);
        }

        synchronized T value(Master m) {
            return answers.get(m.index);
        }

        CompletableFuture<T> call(Master m) {
            return calls.get(m.index);
        }

        synchronized Throwable firstFailure() {
            return asked.stream().map(m -> failures.get(m.index)).filter(f -> f != null).findFirst().orElse(null);
        }
    }

    @Override
    public void close() {
        heldAs.clear();
        for (Master m : masters) {
            m.calls.shutdownNow();
            m.store.close();
        }
    }
}
