package dev.sluice.internal.redis;

import dev.sluice.SluiceConfigException;
import dev.sluice.internal.config.RedisSettings;
import dev.sluice.test.RedisServer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A server whose {@code SCRIPT} command is renamed away (scripting disabled by its operator; {@code EVALSHA} still
 * answers, with {@code NOSCRIPT}) fails at startup and on demand naming the address key, not a script: the fix is
 * the server. The other refusals (a script that does not compile, a user without {@code +@scripting}) are in
 * {@link ScriptExecutorTest}.
 */
class ScriptLoadRefusedTest {

    /** {@code SCRIPT} renamed away: {@code EVALSHA} answers {@code NOSCRIPT}, and nothing can be loaded. */
    @RegisterExtension
    static RedisServer redis = RedisServer.withArgs("--rename-command", "SCRIPT", "");

    private final LuaScript incr = LuaScript.bundled("test-incr");

    @Test
    void aServerThatLoadsNoScriptFailsPreloadNamingTheAddressNotTheScript() {
        try (UnifiedJedis client = RedisClient.create(redis.uri())) {
            ScriptExecutor executor = new ScriptExecutor(() -> client, RedisSettings.Mode.STANDALONE);

            assertThatThrownBy(() -> executor.preload(List.of(incr)))
                    .isInstanceOfSatisfying(SluiceConfigException.class,
                            e -> assertThat(e.key()).isEqualTo("sluice.redis.uri"))
                    .hasMessageStartingWith("sluice.redis.uri: the Redis server does not run Lua scripts")
                    .hasMessageContaining("unknown command")
                    .hasMessageContaining("expected a Redis 7+ or Valkey 8+ server that runs Lua scripts")
                    .hasMessageNotContaining("sluice.script.");
        }
    }

    @Test
    void aCallThatFindsItsScriptMissingOnSuchAServerFailsTheSameWay() {
        try (UnifiedJedis client = RedisClient.create(redis.uri())) {
            ScriptExecutor executor = new ScriptExecutor(() -> client, RedisSettings.Mode.STANDALONE);

            assertThatThrownBy(() -> executor.eval(incr, List.of("counter"), List.of("1")))
                    .isInstanceOfSatisfying(SluiceConfigException.class,
                            e -> assertThat(e.key()).isEqualTo("sluice.redis.uri"))
                    .hasMessageStartingWith("sluice.redis.uri: the Redis server does not run Lua scripts");
            assertThatThrownBy(() -> executor.evalAll(List.of(new ScriptExecutor.Call(incr, List.of("a"),
                    List.of("1")), new ScriptExecutor.Call(incr, List.of("b"), List.of("1")))))
                    .isInstanceOfSatisfying(SluiceConfigException.class,
                            e -> assertThat(e.key()).isEqualTo("sluice.redis.uri"));
            assertThat(redis.admin().exists("counter", "a", "b")).as("nothing ran").isZero();
        }
    }
}
