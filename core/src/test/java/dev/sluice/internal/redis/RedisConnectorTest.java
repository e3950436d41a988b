package dev.sluice.internal.redis;

import dev.sluice.internal.config.RedisAddress;
import dev.sluice.SluiceConfigException;
import dev.sluice.internal.config.RedisSettings;
import dev.sluice.internal.config.RedisSettings.Mode;
import dev.sluice.test.LogCapture;
import dev.sluice.test.RedisProcess;
import dev.sluice.test.RedisServer;
import dev.sluice.test.RedisStats;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.logging.Level;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

class RedisConnectorTest {

    private static final String PASSWORD = "Pw-for-default-7f3a";
    private static final String APP_PASSWORD = "Pw-for-app-user-c41d";

    @RegisterExtension
    static RedisServer redis = RedisServer.withArgs("--requirepass", PASSWORD);

    @RegisterExtension
    LogCapture logs = new LogCapture();

    @BeforeEach
    void createAclUsers() {
        acl("SETUSER", "app", "on", ">" + APP_PASSWORD, "~*", "&*", "+@all");
        acl("SETUSER", "pinger", "on", ">" + APP_PASSWORD, "~*", "-@all", "+client", "+hello", "+auth");
    }

    @Test
    void connectsWithTheDefaultUsersPassword() {
        try (RedisConnector connector = RedisConnector.connect(settings(Optional.empty(), PASSWORD, 0))) {
            connector.client().set("greeting", "hello");

            assertThat(connector.mode()).isEqualTo(Mode.STANDALONE);
            assertThat(connector.ping()).isTrue();
            assertThat(redis.admin().get("greeting")).isEqualTo("hello");
        }
    }

    @Test
    void connectsAsAnAclUserUnderTheNameSluice() {
        try (RedisConnector connector = RedisConnector.connect(settings(Optional.of("app"), APP_PASSWORD, 0))) {
            connector.client().set("k", "v");

            String clients = RedisStats.clientList(redis.admin());
            assertThat(clients.lines().filter(l -> l.contains("name=sluice ")))
                    .isNotEmpty()
                    .allSatisfy(line -> assertThat(line).contains(" user=app "));
        }
    }

    @Test
    void honoursTheDatabaseIndex() {
        try (RedisConnector connector = RedisConnector.connect(settings(Optional.empty(), PASSWORD, 3))) {
            connector.client().set("in-db-3", "x");

            assertThat(redis.admin().exists("in-db-3")).as("visible in database 0").isFalse();
            assertThat(RedisStats.clientList(redis.admin()).lines().filter(l -> l.contains("name=sluice ")))
                    .isNotEmpty()
                    .allSatisfy(line -> assertThat(line).contains(" db=3 "));
        }
    }

    @Test
    void wrongPasswordFailsTheDeploymentNamingTheKey() {
        String wrong = "Wrong-pw-91b2";
        assertThatThrownBy(() -> RedisConnector.connect(settings(Optional.of("app"), wrong, 0)))
                .isInstanceOfSatisfying(SluiceConfigException.class, e -> {
                    assertThat(e.key()).isEqualTo("sluice.redis.password");
                    assertThat(e.getMessage()).contains("sluice.redis.password", "WRONGPASS", "user \"app\"",
                            redis.host() + ":" + redis.port(), "; expected the password of an enabled user");
                    assertThat(everything(e)).doesNotContain(wrong);
                });
    }

    @Test
    void missingPasswordFailsTheDeploymentNamingTheKey() {
        RedisSettings noPassword = new RedisSettings(Optional.of(new RedisAddress(redis.host(), redis.port())),
                List.of(), Optional.empty(), List.of(), List.of(), Optional.empty(), Optional.empty(), 0, false, Duration.ofSeconds(2),
                RedisSettings.Pool.DEFAULT, true);

        assertThatThrownBy(() -> RedisConnector.connect(noPassword))
                .isInstanceOf(SluiceConfigException.class)
                .hasMessageStartingWith("sluice.redis.password: Redis at ")
                .hasMessageContaining("NOAUTH")
                .hasMessageContaining("; expected sluice.redis.password, or the password in sluice.redis.uri");
    }

    @Test
    void userWithoutPermissionFailsTheDeploymentNamingTheUserKey() {
        assertThatThrownBy(() -> RedisConnector.connect(settings(Optional.of("pinger"), APP_PASSWORD, 0)))
                .isInstanceOfSatisfying(SluiceConfigException.class, e -> {
                    assertThat(e.key()).isEqualTo("sluice.redis.user");
                    assertThat(e.getMessage()).contains("user \"pinger\"", "NOPERM");
                });
    }

    @Test
    void unreachableRedisDoesNotFailTheDeploymentAndIsUsedOnceItAnswers() {
        int port = RedisProcess.freePort();
        RedisSettings down = new RedisSettings(Optional.of(new RedisAddress("127.0.0.1", port)), List.of(), Optional.empty(),
                List.of(), List.of(), Optional.empty(), Optional.of(PASSWORD), 0, false, Duration.ofMillis(500),
                RedisSettings.Pool.DEFAULT, true);

        try (RedisConnector connector = RedisConnector.connect(down)) {
            assertThat(connector.ping()).isFalse();
            assertThat(logs.records(Level.WARNING, RedisConnector.class.getName()))
                    .singleElement()
                    .satisfies(r -> assertThat(logs.text(r)).contains("127.0.0.1:" + port, "cannot reach Redis"));

            try (RedisProcess late = RedisProcess.start(port, List.of("--requirepass", PASSWORD))) {
                assertThat(connector.ping()).isTrue();
                assertThat(late.isRunning()).isTrue();
            }
        }
    }

    @Test
    void pingAnswersFalseWithinTheTimeoutWhenRedisHangs() {
        redis.assumeControllable();
        Duration timeout = Duration.ofMillis(300);
        try (RedisConnector connector = RedisConnector.connect(settings(Optional.empty(), PASSWORD, 0, timeout))) {
            assertThat(connector.ping()).isTrue();
            redis.pause();
            try {
                long start = System.nanoTime();
                boolean answered = connector.ping();
                Duration took = Duration.ofNanos(System.nanoTime() - start);

                assertThat(answered).isFalse();
                // An idle pooled connection exists, so only the socket timeout applies; allow scheduling slack.
                assertThat(took).isLessThan(timeout.multipliedBy(4));
            } finally {
                redis.resume();
            }
            await().pollInSameThread().atMost(Duration.ofSeconds(5)).until(connector::ping);
        }
    }

    @Test
    void closeLeavesNoConnectionOnTheServerAndNoThread() throws Exception {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        RedisConnector connector = RedisConnector.connect(settings(Optional.empty(), PASSWORD, 0));
        holdConnectionsConcurrently(connector, 4);
        assertThat(redis.clientCount(RedisConnector.CLIENT_NAME)).isGreaterThanOrEqualTo(4);

        connector.close();

        await().pollInSameThread().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(redis.clientCount(RedisConnector.CLIENT_NAME)).isZero();
            assertThat(newLiveThreads(before)).isEmpty();
        });
        assertThatThrownBy(connector::client).isInstanceOf(IllegalStateException.class);
        assertThat(connector.ping()).isFalse();
    }

    @Test
    void thePasswordAppearsInNoMessageLogOrToString() {
        StringBuilder seen = new StringBuilder();
        RedisSettings good = settings(Optional.empty(), PASSWORD, 0);
        try (RedisConnector connector = RedisConnector.connect(good)) {
            seen.append(connector).append(good).append(connector.client());
        }
        RedisSettings wrong = settings(Optional.empty(), PASSWORD + "-typo", 0);
        try {
            RedisConnector.connect(wrong).close();
        } catch (RuntimeException e) {
            seen.append(everything(e));
        }
        RedisSettings unreachable = new RedisSettings(Optional.of(new RedisAddress("127.0.0.1", RedisProcess.freePort())),
                List.of(), Optional.empty(), List.of(), List.of(), Optional.of("app"), Optional.of(PASSWORD), 0,
                false, Duration.ofMillis(300), RedisSettings.Pool.DEFAULT, true);
        try (RedisConnector connector = RedisConnector.connect(unreachable)) {
            seen.append(connector).append(unreachable);
            try {
                connector.client().get("x");
            } catch (RuntimeException e) {
                seen.append(everything(e));
            }
        }
        logs.texts().forEach(seen::append);

        assertThat(logs.records()).as("something was logged").isNotEmpty();
        assertThat(seen.toString()).contains("****").doesNotContain(PASSWORD);
    }

    private static void holdConnectionsConcurrently(RedisConnector connector, int count) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(count);
        try {
            CountDownLatch allBorrowed = new CountDownLatch(count);
            List<Future<Object>> done = new java.util.ArrayList<>();
            for (int i = 0; i < count; i++) {
                done.add(pool.submit(() -> {
                    allBorrowed.countDown();
                    allBorrowed.await();
                    // A short blocking command keeps each connection busy while the others are borrowed.
                    return connector.client().executeCommand(
                            new CommandArguments(Protocol.Command.BLPOP).key("never-filled").add("0.2"));
                }));
            }
            for (Future<Object> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static Set<String> newLiveThreads(Set<Thread> before) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> !before.contains(t) && t.isAlive())
                .map(Thread::getName)
                .filter(name -> !name.startsWith("pool-")) // the test's own executor, shut down above
                .collect(Collectors.toSet());
    }

    static String everything(Throwable e) {
        StringWriter text = new StringWriter();
        e.printStackTrace(new PrintWriter(text));
        return text.toString();
    }

    private static RedisSettings settings(Optional<String> user, String password, int database) {
        return settings(user, password, database, Duration.ofSeconds(2));
    }

    private static RedisSettings settings(Optional<String> user, String password, int database, Duration timeout) {
        return new RedisSettings(Optional.of(new RedisAddress(redis.host(), redis.port())), List.of(), Optional.empty(),
                List.of(), List.of(), user,
                Optional.of(password), database, false, timeout, RedisSettings.Pool.DEFAULT, true);
    }

    private static void acl(String... args) {
        UnifiedJedis admin = redis.admin();
        admin.executeCommand(new CommandArguments(Protocol.Command.ACL).addObjects((Object[]) args));
    }
}
