package dev.sluice.internal.lock;

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
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
        SluiceConfig config = SluiceConfigLoader.load(ConfigSources.of(Map.of(
                "sluice.redis.uri", applicationRedis.uri(),
                "sluice.redis.timeout", "300ms",
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
                String value = client.get(key);
                if ((heldElsewhere & (1 << i)) != 0) {
                    assertThat(value).as("master %d keeps the other owner's lock", i).isEqualTo("another-owner");
                } else if (!expectGranted) {
                    assertThat(value).as("master %d was cleaned up after the failed attempt", i).isNull();
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
