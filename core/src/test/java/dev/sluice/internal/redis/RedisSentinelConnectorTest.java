package dev.sluice.internal.redis;

import java.util.Map;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.SluiceConfigException;
import dev.sluice.internal.config.RedisSettings;
import dev.sluice.internal.config.RedisSettings.Mode;
import dev.sluice.test.RedisProcess;
import dev.sluice.test.RedisStats;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

class RedisSentinelConnectorTest {

    private static final String PASSWORD = "Master-pw-5e0c";
    private static final String MASTER_NAME = "mymaster";

    private static RedisProcess master;
    private static RedisProcess openSentinel;
    private static RedisProcess guardedSentinel;

    @BeforeEach
    void startMasterAndSentinelsOnce() {
        if (master != null) {
            return;
        }
        master = RedisProcess.start("--requirepass", PASSWORD);
        openSentinel = RedisProcess.startSentinel(monitorMaster());
        guardedSentinel = RedisProcess.startSentinel(
                concat(monitorMaster(), List.of("requirepass " + PASSWORD)));
    }

    @AfterAll
    static void stopAll() {
        for (RedisProcess process : new RedisProcess[] {guardedSentinel, openSentinel, master}) {
            if (process != null) {
                process.close();
            }
        }
        master = null;
        openSentinel = null;
        guardedSentinel = null;
    }

    @Test
    void reachesThePasswordProtectedMasterThroughASentinelWithoutPassword() {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        RedisConnector connector = RedisConnector.connect(settings(List.of(openSentinel.address()), MASTER_NAME,
                PASSWORD));

        connector.client().set("via-sentinel", "yes");

        assertThat(connector.mode()).isEqualTo(Mode.SENTINEL);
        assertThat(masterValue("via-sentinel")).isEqualTo("yes");
        assertThat(sluiceConnectionsOnMaster()).isPositive();

        connector.close();

        await().pollInSameThread().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(newLiveThreads(before)).as("sentinel listeners and evictor stopped").isEmpty();
            assertThat(sluiceConnectionsOnMaster()).isZero();
        });
    }

    @Test
    void closingRightAfterConnectingLeavesNoSentinelListenerBehind() {
        // Jedis starts a listener thread per sentinel while building the client; closed at once, a listener that
        // had not run yet would set itself running again and subscribe for good (a thread and a connection kept
        // after an undeploy) unless close() makes sure it ends.
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        for (int i = 0; i < 20; i++) {
            RedisConnector connector = RedisConnector.connect(settings(List.of(openSentinel.address()), MASTER_NAME,
                    PASSWORD));
            connector.client();
            connector.close();
        }

        assertThat(newLiveThreads(before)).as("sentinel listeners left right after the last close")
                .filteredOn(name -> name.contains("SentinelListener")).isEmpty();
    }

    @Test
    void asksAPasswordProtectedSentinelWithTheSameCredentials() {
        try (RedisConnector connector = RedisConnector.connect(settings(List.of(guardedSentinel.address()),
                MASTER_NAME, PASSWORD))) {
            assertThat(connector.ping()).isTrue();
        }
    }

    @Test
    void unknownMasterNameFailsTheDeploymentNamingTheKey() {
        assertThatThrownBy(() -> RedisConnector.connect(settings(List.of(openSentinel.address()), "no-such-master",
                PASSWORD)))
                .isInstanceOfSatisfying(SluiceConfigException.class,
                        e -> assertThat(e.key()).isEqualTo("sluice.redis.master-name"))
                .hasMessageContaining("\"no-such-master\"");
    }

    @Test
    void wrongMasterPasswordFailsTheDeploymentWithoutShowingIt() {
        String wrong = "Wrong-master-pw-0d1e";

        assertThatThrownBy(() -> RedisConnector.connect(settings(List.of(openSentinel.address()), MASTER_NAME,
                wrong)))
                .isInstanceOfSatisfying(SluiceConfigException.class, e -> {
                    assertThat(e.key()).isEqualTo("sluice.redis.password");
                    assertThat(RedisConnectorTest.everything(e)).doesNotContain(wrong);
                });
    }

    @Test
    void sentinelsDownAtDeployDoNotFailItAndAreUsedOnceTheyAnswer() {
        int port = RedisProcess.freePort();
        try (RedisConnector connector = RedisConnector.connect(settings(List.of("127.0.0.1:" + port), MASTER_NAME,
                PASSWORD))) {
            assertThat(connector.ping()).isFalse();

            try (RedisProcess late = RedisProcess.startSentinel(port, monitorMaster())) {
                await().pollInSameThread().atMost(Duration.ofSeconds(10)).until(connector::ping);
                assertThat(late.isRunning()).isTrue();
            }
        }
    }

    private static List<String> monitorMaster() {
        return List.of("sentinel monitor " + MASTER_NAME + " 127.0.0.1 " + master.port() + " 1",
                "sentinel auth-pass " + MASTER_NAME + " " + PASSWORD);
    }

    private static RedisSettings settings(List<String> sentinels, String masterName, String password) {
        return SluiceConfigLoader.load(ConfigSources.of(Map.of("sluice.redis.sentinels", String.join(",", sentinels),
                "sluice.redis.master-name", masterName, "sluice.redis.password", password))).redis();
    }

    private static String masterValue(String key) {
        try (Jedis jedis = masterConnection()) {
            return jedis.get(key);
        }
    }

    private static long sluiceConnectionsOnMaster() {
        try (Jedis jedis = masterConnection()) {
            return RedisStats.clientCount(jedis.clientList(), RedisConnector.CLIENT_NAME);
        }
    }

    private static Jedis masterConnection() {
        return new Jedis(new HostAndPort(master.host(), master.port()),
                DefaultJedisClientConfig.builder().password(PASSWORD).build());
    }

    private static Set<String> newLiveThreads(Set<Thread> before) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> !before.contains(t) && t.isAlive())
                .map(Thread::getName)
                .collect(Collectors.toSet());
    }

    private static List<String> concat(List<String> a, List<String> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
    }
}
