package dev.sluice.internal.runtime;

import dev.sluice.SluiceConfigException;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.test.RedisServer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A server that runs no Lua scripts fails the deployment, saying so and naming the address key, rather than
 * blaming a bundled script for not compiling. Simulated the way operators disable scripting (managed offerings,
 * hardened configurations): the scripting commands renamed away ({@code rename-command EVAL ""} and the like), which
 * leaves Redis and Valkey answering {@code ERR unknown command}. A Valkey built without Lua (9.1 allows that)
 * answers {@code SCRIPT LOAD} with another {@code ERR} text; both are recognised the same way, by a one-line script
 * failing to load too.
 */
class RedisWithoutScriptingIT {

    @RegisterExtension
    static final RedisServer REDIS = RedisServer.withArgs("--rename-command", "EVAL", "",
            "--rename-command", "EVALSHA", "", "--rename-command", "SCRIPT", "",
            "--rename-command", "FUNCTION", "", "--rename-command", "FCALL", "");

    @Test
    void aServerThatRunsNoScriptsFailsTheDeploymentSayingSo() {
        Map<String, String> values = Map.of("sluice.redis.uri", REDIS.uri(), "sluice.limit.api.rate", "10/1s");

        assertThatThrownBy(() -> SluiceRuntime.start(SluiceConfigLoader.load(ConfigSources.of(values))))
                .isInstanceOfSatisfying(SluiceConfigException.class, e -> org.assertj.core.api.Assertions
                        .assertThat(e.key()).isEqualTo("sluice.redis.uri"))
                .hasMessageStartingWith("sluice.redis.uri: the Redis server does not run Lua scripts")
                .hasMessageContaining("expected a Redis 7+ or Valkey 8+ server that runs Lua scripts")
                .hasMessageNotContaining("sluice.script.");
    }
}
