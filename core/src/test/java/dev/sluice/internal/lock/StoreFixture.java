package dev.sluice.internal.lock;

import dev.sluice.internal.lease.Watchdog;
import dev.sluice.internal.tx.Transactions;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.UnaryOperator;

/**
 * Builds independent {@link LockService}s over one shared backend, as several JVMs share one Redis, and
 * closes everything after the test. Subclasses of the contract tests say how to make one instance's parts.
 *
 * <p>Every service reads {@link #clock}; {@link #elapse} moves it and the store's time together, so lease expiry
 * is tested without waiting for leases to run out.
 */
abstract class StoreFixture implements AutoCloseable {

    /** The parts of one independent Sluice instance: its stores, its signals, and what to close. */
    record Parts(LockStore locks, SemaphoreStore semaphores, ReleaseSignals signals, AutoCloseable resources) {
    }

    private final List<AutoCloseable> toClose = new ArrayList<>();
    final String prefix = "t" + UUID.randomUUID().toString().substring(0, 8);
    final TestClock clock = new TestClock();

    /** A new instance's parts over the shared backend (Redis: its own pool and subscriber). */
    abstract Parts newParts();

    /**
     * Lets {@code by} pass for every service and for the store's leases of {@code storeKeys} (lock or semaphore
     * keys): the in-process stores read {@link #clock}; Redis moves those keys' expiries back by as much.
     */
    void elapse(Duration by, String... storeKeys) {
        clock.advance(by);
    }

    LockService service() {
        return service(UnaryOperator.identity(), Watchdog.ownScheduler(clock::nanos), LockService.DEFAULT_MAX_POLL_MILLIS);
    }

    /** A service whose watchdog never runs: its holders lose their leases as a stalled JVM would. */
    LockService stalledService() {
        StalledScheduler stalled = new StalledScheduler();
        toClose.add(stalled::shutdownNow);
        return service(UnaryOperator.identity(), Watchdog.on(stalled, clock::nanos), LockService.DEFAULT_MAX_POLL_MILLIS);
    }

    /** A service whose watchdog renews only when the test runs {@code scheduler}'s pending tasks. */
    LockService serviceRenewingBy(ManualScheduler scheduler) {
        toClose.add(scheduler::shutdownNow);
        return service(UnaryOperator.identity(), Watchdog.on(scheduler, clock::nanos), LockService.DEFAULT_MAX_POLL_MILLIS);
    }

    /** A service whose waiters poll only once a minute: they acquire soon only when a release wakes them. */
    LockService serviceWakingOnlyBySignal() {
        return service(UnaryOperator.identity(), Watchdog.ownScheduler(clock::nanos), 60_000);
    }

    LockService service(UnaryOperator<LockStore> decorate, Watchdog watchdog, long maxPollMillis) {
        return service(decorate, UnaryOperator.identity(), watchdog, maxPollMillis);
    }

    /** A service whose semaphore store is {@code decorateSemaphores} of the real one (to count its calls). */
    LockService serviceWithSemaphores(UnaryOperator<SemaphoreStore> decorateSemaphores) {
        return service(UnaryOperator.identity(), decorateSemaphores, Watchdog.ownScheduler(clock::nanos),
                LockService.DEFAULT_MAX_POLL_MILLIS);
    }

    LockService service(UnaryOperator<LockStore> decorate, UnaryOperator<SemaphoreStore> decorateSemaphores,
                        Watchdog watchdog, long maxPollMillis) {
        return service(decorate, decorateSemaphores, watchdog, LockService.Options.of(watchdog, maxPollMillis));
    }

    /** A service whose releases inside a transaction of {@code transactions} wait for its completion. */
    LockService service(Transactions transactions) {
        Watchdog watchdog = Watchdog.ownScheduler(clock::nanos);
        return service(watchdog, transactions);
    }

    /** The same on {@code watchdog} (a stalled or manual one). */
    LockService service(Watchdog watchdog, Transactions transactions) {
        return service(UnaryOperator.identity(), UnaryOperator.identity(), watchdog,
                LockService.Options.of(watchdog, LockService.DEFAULT_MAX_POLL_MILLIS).with(transactions));
    }

    /** A service over {@code locks} and {@code semaphores} with {@link LockService.Options#of default options}. */
    static LockService service(LockStore locks, SemaphoreStore semaphores, ReleaseSignals signals, Watchdog watchdog,
                               String prefix) {
        return new LockService(locks, semaphores, signals, watchdog, prefix,
                LockService.Options.of(watchdog, LockService.DEFAULT_MAX_POLL_MILLIS));
    }

    /** A watchdog that never runs: its holders lose their leases as a stalled JVM would. */
    Watchdog stalledWatchdog() {
        StalledScheduler stalled = new StalledScheduler();
        toClose.add(stalled::shutdownNow);
        return Watchdog.on(stalled, clock::nanos);
    }

    private LockService service(UnaryOperator<LockStore> decorate, UnaryOperator<SemaphoreStore> decorateSemaphores,
                                Watchdog watchdog, LockService.Options options) {
        Parts parts = newParts();
        LockService service = new LockService(decorate.apply(parts.locks()), decorateSemaphores.apply(parts.semaphores()),
                parts.signals(), watchdog, prefix, options);
        toClose.add(parts.resources());
        toClose.add(service);
        return service;
    }

    @Override
    public void close() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }
}
