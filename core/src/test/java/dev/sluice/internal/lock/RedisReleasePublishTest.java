package dev.sluice.internal.lock;

import dev.sluice.LockHandle;
import dev.sluice.Permit;
import dev.sluice.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A release is published on Redis only when somebody waits: an uncontended lock+unlock or permit costs no
 * message, while a waiter that was refused is still woken by the release itself, not by its fallback poll.
 */
class RedisReleasePublishTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    @RegisterExtension
    static RedisServer redis = RedisServer.standalone();

    private StoreFixture fixture;
    private ExecutorService pool;

    @BeforeEach
    void start() {
        fixture = new RedisStoreFixture(redis);
        pool = Executors.newSingleThreadExecutor();
    }

    @AfterEach
    void stop() throws Exception {
        pool.shutdownNow();
        fixture.close();
    }

    @Test
    void uncontendedReleasesPublishNothing() {
        LockService service = fixture.service();
        for (int i = 0; i < 50; i++) {
            service.lock("own:" + i).acquire(LEASE, Duration.ZERO).close();
            service.lock("same").acquire(LEASE, Duration.ZERO).close();
            service.semaphore("pdf", 2).acquire(LEASE, Duration.ZERO).close();
        }

        assertThat(redis.commandCount("publish")).isZero();
        assertThat(redis.admin().exists(service.lockKey("same") + ":waiters")).isFalse();
    }

    @Test
    void contendedLockReleaseIsPublishedOnceAndWakesTheWaiter() throws Exception {
        LockService holder = fixture.service();
        LockService waiter = fixture.serviceWakingOnlyBySignal();
        String waitersMark = holder.lockKey("handoff") + ":waiters";
        LockHandle held = holder.lock("handoff").acquire(LEASE, Duration.ZERO);
        Future<Long> acquired = pool.submit(() -> {
            try (LockHandle h = waiter.lock("handoff").acquire(LEASE, Duration.ofSeconds(40))) {
                return h.fencingToken();
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> redis.admin().exists(waitersMark));

        held.close();

        // The waiter's fallback poll is the holder's remaining lease, ~30 s: only the message wakes it sooner.
        assertThat(acquired.get(15, TimeUnit.SECONDS)).isGreaterThan(held.fencingToken());
        assertThat(redis.commandCount("publish")).as("the holder's release, not the waiter's").isEqualTo(1);
        assertThat(redis.admin().exists(waitersMark)).isFalse();
    }

    @Test
    void contendedPermitReturnIsPublishedOnceAndWakesTheWaiter() throws Exception {
        LockService holder = fixture.service();
        LockService waiter = fixture.serviceWakingOnlyBySignal();
        String waitersMark = holder.semaphoreKey("render") + ":waiters";
        Permit held = holder.semaphore("render", 1).acquire(LEASE, Duration.ZERO);
        Future<Boolean> acquired = pool.submit(() -> {
            try (Permit p = waiter.semaphore("render", 1).acquire(LEASE, Duration.ofSeconds(40))) {
                return p.isHeld();
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> redis.admin().exists(waitersMark));

        held.close();

        assertThat(acquired.get(15, TimeUnit.SECONDS)).isTrue();
        assertThat(redis.commandCount("publish")).isEqualTo(1);
        assertThat(redis.admin().exists(waitersMark)).isFalse();
    }
}
