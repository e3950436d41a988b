package dev.sluice.internal.lock;

import dev.sluice.internal.lease.Watchdog;
import dev.sluice.LockHandle;
import dev.sluice.LockNotAcquiredException;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.StoreUnavailableException;
import dev.sluice.internal.redis.RedisConnector;
import dev.sluice.test.RedisMasters;
import dev.sluice.test.RedisProcess;
import dev.sluice.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.params.SetParams;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Redlock over five real, independent redis-server processes (quorum 3), and every subset case of a quorum
 * over the first three of them (quorum 2), as redsync tests its mutex.
 */
class RedlockTest {

    @RegisterExtension
    static RedisServer applicationRedis = RedisServer.standalone();

    @RegisterExtension
    static RedisMasters redlockMasters = RedisMasters.of(5);

    static final Duration LEASE = Duration.ofSeconds(10);

    private List<RedisProcess> masters;

    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeEach
    void takeTheMastersTheExtensionBroughtUpAndEmptied() {
        masters = redlockMasters.processes();
    }

    @AfterEach
    void closeServices() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    private LockService service(List<RedisProcess> over) {
        return service(over, Duration.ofMillis(300));
    }

    private LockService service(List<RedisProcess> over, Duration timeout) {
        SluiceConfig config = SluiceConfigLoader.load(ConfigSources.of(Map.of(
                "sluice.redis.uri", applicationRedis.uri(),
                "sluice.redis.timeout", timeout.toMillis() + "ms",
                "sluice.redis.redlock-nodes", over.stream().map(RedisProcess::uri).collect(Collectors.joining(",")))));
        RedisConnector connector = RedisConnector.connect(applicationRedis.settings());
        LockService service = LockServices.redis(connector, config, Watchdog.ownScheduler());
        toClose.add(connector);
        toClose.add(service);
        return service;
    }

    @Test
    void quorumOfFiveGrantsOneHolderAtATimeWithIncreasingTokens() {
        LockService a = service(masters);
        LockService b = service(masters);
        long previous = Long.MIN_VALUE;
        for (int i = 0; i < 10; i++) {
            try (LockHandle h = (i % 2 == 0 ? a : b).lock("job").acquire(LEASE, Duration.ofSeconds(5))) {
                assertThat(h.fencingToken()).isGreaterThan(previous);
                previous = h.fencingToken();
                assertThat((i % 2 == 0 ? b : a).lock("job").tryAcquire(LEASE)).isEmpty();
            }
        }
    }

    @Test
    void acquiresWithTwoOfFiveMastersKilled() {
        LockService service = service(masters);
        masters.get(1).kill();
        masters.get(3).kill();
        try (LockHandle h = service.lock("two-down").acquire(LEASE, Duration.ofSeconds(5))) {
            assertThat(h.isHeld()).isTrue();
            assertThat(service(masters).lock("two-down").tryAcquire(LEASE)).isEmpty();
        }
    }

    @Test
    void failsClosedAtOnceWithThreeOfFiveMastersKilled() {
        LockService service = service(masters);
        masters.get(0).kill();
        masters.get(2).kill();
        masters.get(4).kill();
        assertThatThrownBy(() -> service.lock("three-down").acquire(LEASE, Duration.ofSeconds(5)))
                .isInstanceOfSatisfying(LockNotAcquiredException.class, e -> {
                    assertThat(e.getCause()).isInstanceOf(StoreUnavailableException.class)
                            .hasMessageContaining("3 of 5 Redlock masters are unreachable");
                    assertThat(e.waited()).isLessThan(Duration.ofSeconds(5));
                });
    }

    /**
     * A hung master (SIGSTOP: its socket accepts, nothing answers) must cost nothing while a majority answers:
     * the attempt returns with the majority's answer instead of waiting out the hung master's timeout. The
     * timeout is long (10 s) so that waiting for it, even once, cannot pass for a quick answer.
     */
    @Test
    void oneHungMasterOfThreeDoesNotSlowAnAcquisition() {
        List<RedisProcess> three = redlockMasters.first(3);
        Duration timeout = Duration.ofSeconds(10);
        LockService service = service(three, timeout);
        LockService other = service(three, timeout);
        three.get(1).pause();

        long started = System.nanoTime();
        Optional<LockHandle> held = service.lock("hung").tryAcquire(LEASE);
        Duration took = since(started);
        started = System.nanoTime();
        Optional<LockHandle> meanwhile = other.lock("hung").tryAcquire(LEASE);
        Duration refusal = since(started);
        started = System.nanoTime();
        boolean extended = held.map(h -> h.extend(LEASE.multipliedBy(2))).orElse(false);
        Duration extension = since(started);
        started = System.nanoTime();
        held.ifPresent(LockHandle::close);
        Duration release = since(started);
        System.out.println("Redlock, 3 masters, 1 paused, timeout " + timeout.toMillis() + " ms: acquire "
                + took.toMillis() + " ms, refused attempt " + refusal.toMillis() + " ms, extend "
                + extension.toMillis() + " ms, release " + release.toMillis() + " ms");

        assertThat(held).as("granted by the two masters that answer").isPresent();
        assertThat(meanwhile).as("exclusion holds with a master hung").isEmpty();
        assertThat(extended).as("renewed by the two masters that answer").isTrue();
        assertThat(other.lock("hung").tryAcquire(LEASE)).as("released on the two masters that answer").isPresent();
        assertThat(List.of(took, refusal, extension, release)).as("answered by the majority, not after the hung "
                + "master's timeout").allSatisfy(d -> assertThat(d).isLessThan(timeout.dividedBy(2)));
    }

    private static Duration since(long startedNanos) {
        return Duration.ofNanos(System.nanoTime() - startedNanos);
    }

    /**
     * Eight callers on eight keys at once, one master of three hung: each has a healthy majority, so each gets its
     * lock, and none waits for the hung master; calls still pending on it must not hold up the others' calls.
     */
    @Test
    void eightConcurrentCallersAllAcquireWithOneHungMasterOfThree() throws Exception {
        List<RedisProcess> three = redlockMasters.first(3);
        Duration timeout = Duration.ofSeconds(2);
        LockService service = service(three, timeout);
        LockService rival = service(three, timeout);
        three.get(2).pause();
        int callers = 8;
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        CyclicBarrier start = new CyclicBarrier(callers);
        Queue<Long> latencies = new ConcurrentLinkedQueue<>();
        try {
            List<Future<String>> results = new ArrayList<>();
            for (int i = 0; i < callers; i++) {
                String name = "key-" + i;
                results.add(pool.submit(() -> {
                    start.await();
                    long started = System.nanoTime();
                    try (LockHandle h = service.lock(name).acquire(LEASE, Duration.ofSeconds(1))) {
                        latencies.add(since(started).toMillis());
                        // Exclusion, while this caller holds: the rival is refused.
                        return rival.lock(name).tryAcquire(LEASE).isPresent() ? "overlap" : "held";
                    } catch (RuntimeException e) {
                        return e.toString();
                    }
                }));
            }
            List<String> outcomes = new ArrayList<>();
            for (Future<String> result : results) {
                outcomes.add(result.get(1, TimeUnit.MINUTES));
            }
            System.out.println("Redlock, 3 masters, 1 paused, timeout " + timeout.toMillis() + " ms, " + callers
                    + " concurrent callers: acquire latencies " + latencies + " ms");
            assertThat(outcomes).containsOnly("held");
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * The drift allowance is taken off the lease, never added: a lease no longer than the allowance (1 ms against
     * 2 ms) gives no validity at all, so no majority can grant it.
     */
    @Test
    void aLeaseShorterThanTheDriftAllowanceIsNeverGranted() {
        ReleaseSignals signals = new ReleaseSignals();
        List<LockStore> stores = List.of(new InProcessLockStore(signals), new InProcessLockStore(signals),
                new InProcessLockStore(signals));
        RedlockStore.FenceWriter noFence = (key, token) -> { };
        try (RedlockStore redlock = new RedlockStore(stores, List.of(noFence, noFence, noFence), 1000)) {
            assertThat(redlock.validityMillis(10_000)).isEqualTo(10_000 - 100 - 2);
            assertThat(redlock.tryLock("k", "owner", 1).acquired()).isFalse();
            assertThat(redlock.tryLock("k", "owner", 10_000).acquired()).isTrue();
        }
    }

    /**
     * Writing the fencing token back is part of the attempt: when it takes the lock past its validity, the lock is
     * not held, and is undone everywhere. The write-back here is slowed past a 200 ms lease on purpose.
     */
    @Test
    void aGrantWhoseFenceWriteOutlastsTheValidityIsRefusedAndUndone() {
        ReleaseSignals signals = new ReleaseSignals();
        List<LockStore> stores = List.of(new InProcessLockStore(signals), new InProcessLockStore(signals),
                new InProcessLockStore(signals));
        RedlockStore.FenceWriter slow = (key, token) -> {
            try {
                Thread.sleep(300); // the scenario: a write-back slower than the lease
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        try (RedlockStore redlock = new RedlockStore(stores, List.of(slow, slow, slow), 5_000)) {
            assertThat(redlock.tryLock("k", "late", 200).acquired()).isFalse();
            for (LockStore store : stores) {
                assertThat(store.tryLock("k", "next", 10_000).acquired()).as("undone on %s", store).isTrue();
            }
        }
    }

    /** Bit i of {@code heldElsewhere} set: master i already holds the lock for another owner. */
    @ParameterizedTest(name = "masters held by another owner: {0}")
    @ValueSource(ints = {0b000, 0b001, 0b010, 0b100, 0b011, 0b101, 0b110, 0b111})
    void quorumOfThreeGrantsOnlyWhenTwoMastersAreFree(int heldElsewhere) {
        List<RedisProcess> three = masters.subList(0, 3);
        LockService service = service(three);
        String key = service.lockKey("subset");
        for (int i = 0; i < 3; i++) {
            if ((heldElsewhere & (1 << i)) != 0) {
                try (RedisClient client = RedisClient.create(three.get(i).host(), three.get(i).port())) {
                    client.set(key, "another-owner", SetParams.setParams().px(30_000));
                }
            }
        }
        boolean expectGranted = Integer.bitCount(heldElsewhere) <= 1;

        var handle = service.lock("subset").tryAcquire(LEASE);
        assertThat(handle.isPresent()).isEqualTo(expectGranted);
        for (int i = 0; i < 3; i++) {
            try (RedisClient client = RedisClient.create(three.get(i).host(), three.get(i).port())) {
                if ((heldElsewhere & (1 << i)) != 0) {
                    assertThat(client.get(key)).as("master %d keeps the other owner's lock", i)
                            .isEqualTo("another-owner");
                } else if (!expectGranted) {
                    // A master whose grant arrived after the two refusals had decided the vote is undone once it
                    // arrives, after tryAcquire returned (RedlockStore.undo); well within the lease either way.
                    int master = i;
                    await("master " + master + " cleaned up after the failed attempt").atMost(Duration.ofSeconds(5))
                            .until(() -> client.get(key) == null);
                }
            }
        }
        handle.ifPresent(LockHandle::close);
    }

    /** Bit i of {@code killed} set: master i is down. */
    @ParameterizedTest(name = "masters killed: {0}")
    @ValueSource(ints = {0b000, 0b001, 0b010, 0b100, 0b011, 0b101, 0b110, 0b111})
    void quorumOfThreeSurvivesOneKilledMasterAndFailsClosedWithTwo(int killed) {
        List<RedisProcess> three = masters.subList(0, 3);
        LockService service = service(three);
        for (int i = 0; i < 3; i++) {
            if ((killed & (1 << i)) != 0) {
                three.get(i).kill();
            }
        }
        if (Integer.bitCount(killed) <= 1) {
            try (LockHandle h = service.lock("subset").acquire(LEASE, Duration.ofSeconds(2))) {
                assertThat(h.isHeld()).isTrue();
            }
        } else {
            assertThatThrownBy(() -> service.lock("subset").acquire(LEASE, Duration.ofSeconds(2)))
                    .isInstanceOf(LockNotAcquiredException.class)
                    .hasCauseInstanceOf(StoreUnavailableException.class);
        }
    }
}
