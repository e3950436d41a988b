package dev.sluice.internal.lock;

import dev.sluice.LockHandle;
import dev.sluice.test.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The lock contract on a real Redis: services with separate pools, as separate JVMs would have. */
class RedisLockContractTest extends LockContractTest {

    @RegisterExtension
    static RedisServer redis = RedisServer.standalone();

    @Override
    StoreFixture fixture() {
        return new RedisStoreFixture(redis);
    }

    @Test
    void queuedThreadTakesTheLockOverInOneStoreCallWithoutReleasingIt() throws Exception {
        Counted counted = countingService();
        LockService service = counted.service();
        CountingLockStore counting = counted.store();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        LockHandle holder = service.lock("pass").acquire(LONG_LEASE, Duration.ZERO);
        Future<LockHandle> next = queueBehindHolder(pool, service, "pass", Duration.ofSeconds(30));

        holder.close();
        try (LockHandle h = next.get(15, TimeUnit.SECONDS)) {
            assertThat(h.fencingToken()).isGreaterThan(holder.fencingToken());
            assertThat(counting.attempts).hasValue(1);
            assertThat(counting.handOvers).hasValue(1);
            assertThat(counting.unlocks).hasValue(0);
        }
        assertThat(counting.unlocks).hasValue(1);
        pool.shutdown();
    }

    @Test
    void handOverWhoseReplyWasLostLeavesTheLockToItsNewOwner() {
        // The hand-off ran in Redis but its reply was lost: a retry, and the new owner's own attempt, must find the
        // lock theirs instead of refusing them against their own token (which orphans the lock for a lease).
        LockService service = fixture.service();
        String storeKey = service.lockKey("lost-handoff");
        assertThat(service.lockStore.tryLock(storeKey, "holder", LONG_LEASE.toMillis()).acquired()).isTrue();
        LockStore.Handover ran = service.lockStore.handOver(storeKey, "holder", "next", LONG_LEASE.toMillis());
        LockStore.Handover retried = service.lockStore.handOver(storeKey, "holder", "next", LONG_LEASE.toMillis());
        Attempt nextsOwnAttempt = service.lockStore.tryLock(storeKey, "next", LONG_LEASE.toMillis());

        assertThat(ran.attempt().acquired()).isTrue();
        assertThat(retried.released()).isTrue();
        assertThat(retried.attempt()).isEqualTo(ran.attempt());
        assertThat(nextsOwnAttempt).isEqualTo(ran.attempt());
        assertThat(service.lockStore.unlock(storeKey, "next")).isTrue();
    }

    @Test
    void handOverReleasesAndPublishesInsteadWhenAnotherInstanceWaits() throws Exception {
        Counted counted = countingService();
        LockService service = counted.service();
        CountingLockStore counting = counted.store();
        LockService other = fixture.serviceWakingOnlyBySignal();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        LockHandle holder = service.lock("fair").acquire(LONG_LEASE, Duration.ZERO);
        Future<LockHandle> local = queueBehindHolder(pool, service, "fair", Duration.ofSeconds(30));
        Future<LockHandle> remote = pool.submit(() -> other.lock("fair").acquire(LONG_LEASE, Duration.ofSeconds(30)));
        // The other instance's refused attempt marks the lock as awaited.
        await().atMost(Duration.ofSeconds(10)).until(() -> other.signals().waitingKeys() == 1);

        holder.close();
        assertThat(counting.handOvers).hasValue(1);
        LockStore.Handover handover = counting.lastHandover.get();
        assertThat(handover.released()).isTrue();
        assertThat(handover.attempt().acquired()).isFalse();
        // Both get the lock, one after the other (in either order): the release was published, not swallowed.
        await().atMost(Duration.ofSeconds(15)).until(() -> local.isDone() || remote.isDone());
        Future<LockHandle> first = local.isDone() ? local : remote;
        Future<LockHandle> second = first == local ? remote : local;
        LockHandle firstHandle = first.get();
        assertThat(firstHandle.fencingToken()).isGreaterThan(holder.fencingToken());
        firstHandle.close();
        try (LockHandle h = second.get(15, TimeUnit.SECONDS)) {
            assertThat(h.fencingToken()).isGreaterThan(firstHandle.fencingToken());
        }
        pool.shutdown();
    }
}
