package dev.sluice.internal.lock;

import dev.sluice.internal.lease.Watchdog;
import dev.sluice.Permit;
import dev.sluice.test.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The semaphore contract on a real Redis, and the one-call hand-over of a permit between threads of one instance. */
class RedisSemaphoreContractTest extends SemaphoreContractTest {

    @RegisterExtension
    static RedisServer redis = RedisServer.standalone();

    @Override
    StoreFixture fixture() {
        return new RedisStoreFixture(redis);
    }

    record Counted(LockService service, CountingSemaphoreStore store) {
    }

    /** A counting service whose waiters poll once a minute, so that only returns and hand-overs move them. */
    Counted countingService() {
        CountingSemaphoreStore[] counting = new CountingSemaphoreStore[1];
        LockService service = fixture.service(UnaryOperator.identity(),
                store -> counting[0] = new CountingSemaphoreStore(store), Watchdog.ownScheduler(fixture.clock::nanos),
                60_000);
        return new Counted(service, counting[0]);
    }

    @Test
    void waitingThreadTakesThePermitOverInOneStoreCallWithoutItBeingReturned() throws Exception {
        Counted counted = countingService();
        LockService service = counted.service();
        CountingSemaphoreStore counting = counted.store();
        LockService other = fixture.service();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        Permit holder = service.semaphore("pass", 1).acquire(LEASE, Duration.ZERO);
        Future<Permit> next = waitForPermit(pool, service, "pass", 1, Duration.ofSeconds(30));
        assertThat(counting.attempts).hasValue(2); // the holder's, and the waiter's refused one

        holder.close();
        try (Permit p = next.get(15, TimeUnit.SECONDS)) {
            assertThat(p.isHeld()).isTrue();
            assertThat(counting.handOvers).hasValue(1);
            assertThat(counting.lastHandover.get().released()).isTrue();
            assertThat(counting.releases).hasValue(0);
            assertThat(counting.attempts).hasValue(2);
            assertThat(other.semaphore("pass", 1).tryAcquire(LEASE)).isEmpty();
        }
        assertThat(counting.releases).hasValue(1);
        other.semaphore("pass", 1).tryAcquire(LEASE).orElseThrow().close();
        pool.shutdown();
    }

    @Test
    void handOverReturnsAndPublishesInsteadWhenAnotherInstanceWaits() throws Exception {
        Counted counted = countingService();
        LockService service = counted.service();
        CountingSemaphoreStore counting = counted.store();
        LockService other = fixture.serviceWakingOnlyBySignal();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        Permit holder = service.semaphore("fair", 1).acquire(LEASE, Duration.ZERO);
        Future<Permit> local = waitForPermit(pool, service, "fair", 1, Duration.ofSeconds(30));
        // The other instance's refused attempt marks the semaphore as awaited by another instance.
        Future<Permit> remote = waitForPermit(pool, other, "fair", 1, Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(10)).until(() -> other.signals().waitingKeys() == 1);

        holder.close();
        assertThat(counting.handOvers).hasValue(1);
        LockStore.Handover handover = counting.lastHandover.get();
        assertThat(handover.released()).isTrue();
        assertThat(handover.attempt().acquired()).isFalse();
        // Both get the permit, one after the other (in either order): the return was published, not swallowed.
        await().atMost(Duration.ofSeconds(15)).until(() -> local.isDone() || remote.isDone());
        Future<Permit> first = local.isDone() ? local : remote;
        Future<Permit> second = first == local ? remote : local;
        first.get().close();
        try (Permit p = second.get(15, TimeUnit.SECONDS)) {
            assertThat(p.isHeld()).isTrue();
        }
        pool.shutdown();
    }

    @Test
    void handOverOfAnExpiredPermitIsRefusedAndPassesNothing() {
        LockService service = fixture.service();
        String key = service.semaphoreKey("expired");
        SemaphoreStore store = service.semaphoreStore;
        assertThat(store.tryAcquire(key, "holder", 1, SHORT_LEASE.toMillis()).acquired()).isTrue();
        fixture.elapse(SHORT_LEASE.plusSeconds(1), key);

        LockStore.Handover handover = store.handOver(key, "holder", "next", 1, LEASE.toMillis());

        assertThat(handover.released()).isFalse();
        assertThat(handover.attempt().acquired()).isFalse();
        assertThat(store.tryAcquire(key, "third", 1, LEASE.toMillis()).acquired()).isTrue();
        assertThat(store.release(key, "next")).isFalse();
        assertThat(store.release(key, "third")).isTrue();
    }

    @Test
    void handOverPassesThePermitWithoutFreeingASecondOne() {
        LockService service = fixture.service();
        String key = service.semaphoreKey("swap");
        SemaphoreStore store = service.semaphoreStore;
        assertThat(store.tryAcquire(key, "a", 2, LEASE.toMillis()).acquired()).isTrue();
        assertThat(store.tryAcquire(key, "b", 2, LEASE.toMillis()).acquired()).isTrue();

        LockStore.Handover handover = store.handOver(key, "a", "c", 2, LEASE.toMillis());

        assertThat(handover.released()).isTrue();
        assertThat(handover.attempt().acquired()).isTrue();
        assertThat(store.tryAcquire(key, "d", 2, LEASE.toMillis()).acquired()).isFalse();
        assertThat(store.release(key, "a")).isFalse();
        assertThat(store.release(key, "c")).isTrue();
        assertThat(store.release(key, "b")).isTrue();
    }

    @Test
    void handOverWithFewerPermitsAllowedThanHeldReturnsThePermitAndPassesNothing() {
        LockService service = fixture.service();
        String key = service.semaphoreKey("shrunk");
        SemaphoreStore store = service.semaphoreStore;
        assertThat(store.tryAcquire(key, "a", 2, LEASE.toMillis()).acquired()).isTrue();
        assertThat(store.tryAcquire(key, "b", 2, LEASE.toMillis()).acquired()).isTrue();

        LockStore.Handover handover = store.handOver(key, "a", "c", 1, LEASE.toMillis());

        assertThat(handover.released()).isTrue();
        assertThat(handover.attempt().acquired()).isFalse();
        assertThat(store.tryAcquire(key, "d", 1, LEASE.toMillis()).acquired()).isFalse();
        assertThat(store.release(key, "b")).isTrue();
    }

    @Test
    void handOverWhoseReplyWasLostLeavesThePermitToItsNewHolder() {
        // The hand-over ran in Redis but its reply was lost: the next thread's own attempt under the same permit id
        // must find the permit its own instead of being refused against it (which orphans it for a lease).
        LockService service = fixture.service();
        String key = service.semaphoreKey("lost-handover");
        SemaphoreStore store = service.semaphoreStore;
        assertThat(store.tryAcquire(key, "holder", 1, LEASE.toMillis()).acquired()).isTrue();
        assertThat(store.handOver(key, "holder", "next", 1, LEASE.toMillis()).attempt().acquired()).isTrue();

        assertThat(store.tryAcquire(key, "next", 1, LEASE.toMillis()).acquired()).isTrue();
        assertThat(store.tryAcquire(key, "other", 1, LEASE.toMillis()).acquired()).isFalse();
        assertThat(store.release(key, "next")).isTrue();
        assertThat(store.tryAcquire(key, "other", 1, LEASE.toMillis()).acquired()).isTrue();
    }
}
