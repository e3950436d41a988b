package dev.sluice.internal.redis;

import dev.sluice.internal.config.RedisAddress;
import dev.sluice.SluiceConfigException;
import dev.sluice.internal.config.RedisSettings;
import dev.sluice.test.RedisProcess;
import dev.sluice.test.RedisServer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

class ScriptExecutorTest {

    @RegisterExtension
    static RedisServer redis = RedisServer.standalone();

    private final LuaScript incr = LuaScript.bundled("test-incr");
    private RedisConnector connector;
    private ScriptExecutor executor;

    @BeforeEach
    void connect() {
        connector = RedisConnector.connect(redis.settings());
        executor = ScriptExecutor.of(connector);
        redis.admin().scriptFlush();
        redis.resetStats();
    }

    @AfterEach
    void close() {
        connector.close();
    }

    @Test
    void everyCallIsOneEvalshaAndNeverEval() {
        executor.preload(List.of(incr));
        redis.resetStats();

        for (long expected = 1; expected <= 5; expected++) {
            assertThat(incr("counter")).isEqualTo(expected);
        }

        assertThat(redis.commandCount("evalsha")).isEqualTo(5);
        assertThat(redis.commandCount("eval")).isZero();
        assertThat(redis.commandCount("script|load")).isZero();
    }

    @Test
    void aScriptRedisLacksIsLoadedOnceAndTheCallRetried() {
        assertThat(incr("counter")).isEqualTo(1L);
        assertThat(incr("counter")).isEqualTo(2L);

        assertThat(redis.commandCount("script|load")).isEqualTo(1);
        assertThat(redis.commandCount("evalsha")).as("NOSCRIPT, retry, second call").isEqualTo(3);
        assertThat(redis.commandCount("eval")).isZero();
    }

    @Test
    void scriptFlushBetweenTwoCallsIsInvisible() {
        executor.preload(List.of(incr));
        assertThat(incr("counter")).isEqualTo(1L);

        redis.admin().scriptFlush();

        assertThat(incr("counter")).isEqualTo(2L);
        assertThat(redis.admin().scriptExists(List.of(incr.sha()))).containsExactly(true);
    }

    @Test
    void aPipelinedBatchRunsEveryCallInOrderAsOneEvalshaEach() {
        executor.preload(List.of(incr));
        redis.resetStats();

        List<Object> replies = executor.evalAll(incrs("a", "1", "b", "5", "a", "2"));

        assertThat(replies).containsExactly(1L, 5L, 3L);
        assertThat(redis.commandCount("evalsha")).isEqualTo(3);
        assertThat(redis.commandCount("eval")).isZero();
    }

    @Test
    void aBatchRedisLacksTheScriptForIsLoadedOnceAndEveryCallRunsOnce() {
        List<Object> replies = executor.evalAll(incrs("a", "1", "b", "5", "a", "2"));

        assertThat(replies).containsExactly(1L, 5L, 3L);
        assertThat(redis.commandCount("script|load")).isEqualTo(1);
        assertThat(redis.commandCount("evalsha")).as("three NOSCRIPT, three re-runs").isEqualTo(6);
    }

    @Test
    void aBatchOfSeveralScriptsRunsEachCallWithItsOwnScriptAndLoadsEachMissingOnce() {
        LuaScript get = LuaScript.of("test-get", "return redis.call('GET', KEYS[1])", "ScriptExecutorTest");

        List<Object> replies = executor.evalAll(List.of(new ScriptExecutor.Call(incr, List.of("a"), List.of("2")),
                new ScriptExecutor.Call(get, List.of("a"), List.of()),
                new ScriptExecutor.Call(incr, List.of("a"), List.of("3")),
                new ScriptExecutor.Call(get, List.of("a"), List.of())));

        assertThat(replies).containsExactly(2L, "2", 5L, "5");
        assertThat(redis.commandCount("script|load")).as("one load per script").isEqualTo(2);
        assertThat(redis.commandCount("evalsha")).as("four NOSCRIPT, four re-runs").isEqualTo(8);
    }

    @Test
    void aCallOfABatchWhoseScriptFailsFailsAloneAndTheOthersStand() {
        List<Object> replies = executor.evalAll(incrs("a", "1", "b", "not a number", "a", "2"));

        assertThat(replies.get(0)).isEqualTo(1L);
        assertThat(replies.get(1)).isInstanceOfSatisfying(redis.clients.jedis.exceptions.JedisDataException.class,
                e -> assertThat(e.getMessage()).contains("not an integer"));
        assertThat(replies.get(2)).isEqualTo(3L);
    }

    @Test
    void redisRestartBetweenTwoCallsIsInvisibleOnceReconnected() {
        redis.assumeControllable();
        executor.preload(List.of(incr));
        assertThat(incr("counter")).isEqualTo(1L);

        redis.stop();
        redis.start();

        assertRecoversWithoutScripts();
    }

    @Test
    void redisKilledAndRestartedIsInvisibleOnceReconnected() {
        redis.assumeControllable();
        executor.preload(List.of(incr));
        assertThat(incr("counter")).isEqualTo(1L);

        redis.kill();
        assertThatThrownBy(() -> incr("counter")).isInstanceOf(JedisConnectionException.class);
        redis.start();

        assertRecoversWithoutScripts();
    }

    @Test
    void brokenReplacementFailsPreloadNamingItsKey(@TempDir Path dir) throws Exception {
        LuaScript broken = brokenReplacement(dir);

        assertThatThrownBy(() -> executor.preload(List.of(incr, broken)))
                .isInstanceOfSatisfying(SluiceConfigException.class,
                        e -> assertThat(e.key()).isEqualTo("sluice.script.test-incr"))
                .hasMessageStartingWith("sluice.script.test-incr: \"" + broken.location() + "\" was rejected by Redis")
                .hasMessageContaining("Error compiling script")
                .hasMessageContaining("; expected a Lua script that Redis compiles");
    }

    @Test
    void brokenReplacementLoadedOnDemandAlsoNamesItsKey(@TempDir Path dir) throws Exception {
        LuaScript broken = brokenReplacement(dir);

        assertThatThrownBy(() -> executor.eval(broken, List.of("k"), List.of()))
                .isInstanceOf(SluiceConfigException.class)
                .hasMessageContaining("sluice.script.test-incr");
    }

    @Test
    void aUserWhoMayNotLoadScriptsFailsNamingTheUserKeyAndTheAclFix() {
        redis.admin().sendCommand(Protocol.Command.ACL, "SETUSER", "reader", "reset", "on", ">s3cret", "~*",
                "+@all", "-@scripting");
        String uri = "redis://reader:s3cret@" + redis.host() + ":" + redis.port();
        try (UnifiedJedis client = RedisClient.create(uri)) {
            ScriptExecutor executor = new ScriptExecutor(() -> client, RedisSettings.Mode.STANDALONE);

            assertThatThrownBy(() -> executor.preload(List.of(incr)))
                    .isInstanceOfSatisfying(SluiceConfigException.class,
                            e -> assertThat(e.key()).isEqualTo("sluice.redis.user"))
                    .hasMessageStartingWith("sluice.redis.user: Redis refuses to load Lua script test-incr for this user")
                    .hasMessageContaining("NOPERM")
                    .hasMessageContaining("expected an ACL user with +@scripting");
        } finally {
            redis.admin().sendCommand(Protocol.Command.ACL, "DELUSER", "reader");
        }
    }

    @Test
    void preloadWithRedisDownIsSkippedAndCallsFailAsConnectionErrors() {
        RedisSettings down = new RedisSettings(Optional.of(new RedisAddress("127.0.0.1", RedisProcess.freePort())),
                List.of(), Optional.empty(), List.of(), List.of(), Optional.empty(), Optional.empty(), 0, false,
                Duration.ofMillis(300), RedisSettings.Pool.DEFAULT, true);
        try (RedisConnector unreachable = RedisConnector.connect(down)) {
            ScriptExecutor offline = ScriptExecutor.of(unreachable);

            offline.preload(List.of(incr));

            assertThatThrownBy(() -> offline.eval(incr, List.of("k"), List.of("1")))
                    .isInstanceOf(JedisConnectionException.class);
        }
    }

    @Test
    void everyBundledScriptCompiles() throws Exception {
        List<LuaScript> bundled = new ArrayList<>();
        Enumeration<URL> directories = LuaScript.class.getClassLoader().getResources("dev/sluice/scripts/");
        while (directories.hasMoreElements()) {
            try (Stream<Path> files = Files.list(Path.of(directories.nextElement().toURI()))) {
                files.map(file -> file.getFileName().toString())
                        .filter(file -> file.endsWith(".lua"))
                        .map(file -> LuaScript.bundled(file.substring(0, file.length() - ".lua".length())))
                        .forEach(bundled::add);
            }
        }
        assertThat(bundled).isNotEmpty();

        executor.preload(bundled);

        assertThat(redis.admin().scriptExists(bundled.stream().map(LuaScript::sha).toList()))
                .containsOnly(true);
    }

    @Test
    void scriptsNeedAKey() {
        assertThatThrownBy(() -> executor.eval(incr, List.of(), List.of("1")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * After a restart the data and the script cache are gone and every pooled connection is stale: calls may fail
     * while stale connections are discarded, then they succeed and find the script again by themselves.
     */
    private void assertRecoversWithoutScripts() {
        await().pollInSameThread().atMost(Duration.ofSeconds(10))
                .ignoreExceptionsInstanceOf(JedisConnectionException.class)
                .until(() -> Long.valueOf(1).equals(incr("counter")));
        for (long expected = 2; expected <= 10; expected++) {
            assertThat(incr("counter")).isEqualTo(expected);
        }
        assertThat(redis.admin().scriptExists(List.of(incr.sha()))).containsExactly(true);
        assertThat(redis.commandCount("eval")).isZero();
    }

    private LuaScript brokenReplacement(Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("broken.lua"), "return redis.call('INCR', KEYS[1]) +");
        Function<String, Optional<String>> config = key -> key.equals("sluice.script.test-incr")
                ? Optional.of("file:" + file) : Optional.empty();
        return LuaScript.load("test-incr", config);
    }

    private Object incr(String key) {
        return executor.eval(incr, List.of(key), List.of("1"));
    }

    /** Calls of {@code incr}: key, increment, key, increment, ... */
    private List<ScriptExecutor.Call> incrs(String... keysAndIncrements) {
        List<ScriptExecutor.Call> calls = new java.util.ArrayList<>();
        for (int i = 0; i < keysAndIncrements.length; i += 2) {
            calls.add(new ScriptExecutor.Call(incr, List.of(keysAndIncrements[i]), List.of(keysAndIncrements[i + 1])));
        }
        return calls;
    }
}
