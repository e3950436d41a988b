package dev.sluice.internal.lock;

import dev.sluice.StoreUnavailableException;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Locks over N independent Redis masters (Redlock): a lock is held when a majority granted it within its
 * validity, the lease minus the time the attempt took minus an allowance for clock drift between the
 * masters ({@code lease * 1% + 2 ms}). Every master runs the same scripts as {@link RedisLockStore}; the
 * calls go to all masters in parallel, and a failed attempt is undone on all of them.
 *
 * <p>Fencing tokens: the token is the highest one the granting masters issued, written back to them
 * ({@code lock-fence.lua}) before the lock counts as acquired, so every later majority, which shares a
 * master with this one, issues a higher token. That holds as long as no master loses its counter while
 * being part of the overlap (a restart without persistence); the Redis-clock floor of the token covers most
 * of that case too. See docs/locks-and-semaphores.md.
 *
 * <p>Masters that cannot be reached count as refusals; when so many are unreachable that no majority can
 * answer, the attempt fails with {@link StoreUnavailableException} (the caller fails closed) instead of
 * waiting. Thread-safe.
 */
public final class RedlockStore implements LockStore {

    private static final AtomicInteger THREADS = new AtomicInteger();

    private final List<LockStore> masters;
    private final List<FenceWriter> fences;
    private final int quorum;
    private final long callTimeoutMillis;
    private final ExecutorService calls;

    /** Writes a fencing token back to one master. */
    @FunctionalInterface
    public interface FenceWriter {
        void raise(String fenceKey, long token);
    }

    /**
     * @param masters           one store per independent master, in configuration order
     * @param fences            the fence write-back of each master, same order
     * @param callTimeoutMillis how long to wait for a master's answer (the Redis command timeout)
     */
    public RedlockStore(List<LockStore> masters, List<FenceWriter> fences, long callTimeoutMillis) {
        if (masters.size() < 3 || masters.size() != fences.size()) {
            throw new IllegalArgumentException("Redlock needs at least 3 masters, each with its fence writer");
        }
        this.masters = List.copyOf(masters);
        this.fences = List.copyOf(fences);
        this.quorum = masters.size() / 2 + 1;
        this.callTimeoutMillis = callTimeoutMillis;
        this.calls = Executors.newFixedThreadPool(masters.size() * 2, r -> {
            Thread t = new Thread(r, "sluice-redlock-" + THREADS.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
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
        List<Outcome<Attempt>> outcomes = onAll(store -> store.tryLock(key, owner, leaseMillis));
        int granted = 0;
        int unreachable = 0;
        long highest = Long.MIN_VALUE;
        long hint = Long.MAX_VALUE;
        List<Integer> granting = new ArrayList<>();
        for (int i = 0; i < outcomes.size(); i++) {
            Outcome<Attempt> o = outcomes.get(i);
            if (o.failure != null) {
                unreachable++;
            } else if (o.value.acquired()) {
                granted++;
                granting.add(i);
                highest = Math.max(highest, o.value.fencingToken());
            } else {
                hint = Math.min(hint, o.value.retryHintMillis());
            }
        }
        long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        if (granted >= quorum && elapsedMillis < validityMillis(leaseMillis) && writeBack(key, highest, granting)) {
            return Attempt.granted(highest);
        }
        unlock(key, owner);
        if (masters.size() - unreachable < quorum) {
            throw new StoreUnavailableException(unreachable + " of " + masters.size()
                    + " Redlock masters are unreachable; no majority of " + quorum + " can grant the lock",
                    firstFailure(outcomes));
        }
        // Held elsewhere, or we lost the race to a split vote: try again soon, with some spread.
        return Attempt.refused(hint == Long.MAX_VALUE ? 1 : Math.max(1, hint));
    }

    private boolean writeBack(String key, long token, List<Integer> granting) {
        List<Future<?>> writes = new ArrayList<>();
        for (int i : granting) {
            FenceWriter fence = fences.get(i);
            writes.add(calls.submit(() -> fence.raise(key + ":fence", token)));
        }
        int written = 0;
        for (Future<?> w : writes) {
            if (outcome(w).failure == null) {
                written++;
            }
        }
        return written >= quorum;
    }

    /** Release and refuse: this store does not know which instance a waiter belongs to. */
    @Override
    public Handover handOver(String key, String holder, String next, long leaseMillis) {
        return LockStore.releaseAndRefuse(this, key, holder);
    }

    @Override
    public boolean unlock(String key, String owner) {
        List<Outcome<Boolean>> outcomes = onAll(store -> store.unlock(key, owner));
        return count(outcomes, true) >= quorum;
    }

    @Override
    public boolean extend(String key, String owner, long leaseMillis) {
        long started = System.nanoTime();
        List<Outcome<Boolean>> outcomes = onAll(store -> store.extend(key, owner, leaseMillis));
        int extended = count(outcomes, true);
        long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        if (extended >= quorum && elapsedMillis < validityMillis(leaseMillis)) {
            return true;
        }
        if (count(outcomes, false) > masters.size() - quorum) {
            // A majority says we no longer own it: the lease is gone for good.
            return false;
        }
        throw new StoreUnavailableException("only " + extended + " of " + masters.size()
                + " Redlock masters confirmed the renewal of " + key, firstFailure(outcomes));
    }

    private static int count(List<Outcome<Boolean>> outcomes, boolean value) {
        int n = 0;
        for (Outcome<Boolean> o : outcomes) {
            if (o.failure == null && o.value == value) {
                n++;
            }
        }
        return n;
    }

    private record Outcome<T>(T value, Throwable failure) {
    }

    private <T> List<Outcome<T>> onAll(Function<LockStore, T> call) {
        List<Future<T>> futures = new ArrayList<>(masters.size());
        for (LockStore master : masters) {
            futures.add(calls.submit(() -> call.apply(master)));
        }
        List<Outcome<T>> outcomes = new ArrayList<>(masters.size());
        for (Future<T> f : futures) {
            outcomes.add(outcome(f));
        }
        return outcomes;
    }

    private <T> Outcome<T> outcome(Future<T> future) {
        try {
            return new Outcome<>(future.get(callTimeoutMillis, TimeUnit.MILLISECONDS), null);
        } catch (ExecutionException e) {
            return new Outcome<>(null, e.getCause());
        } catch (TimeoutException e) {
            future.cancel(true);
            return new Outcome<>(null, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Outcome<>(null, e);
        }
    }

    private static Throwable firstFailure(List<? extends Outcome<?>> outcomes) {
        return outcomes.stream().map(Outcome::failure).filter(f -> f != null).findFirst().orElse(null);
    }

    @Override
    public void close() {
        calls.shutdownNow();
        for (LockStore master : masters) {
            master.close();
        }
    }
}
