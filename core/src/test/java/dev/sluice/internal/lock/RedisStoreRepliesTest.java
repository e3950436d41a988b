package dev.sluice.internal.lock;

import dev.sluice.StoreUnavailableException;
import dev.sluice.internal.redis.RedisConnector;
import dev.sluice.internal.redis.ScriptCalls;
import dev.sluice.internal.redis.ScriptExecutor;
import dev.sluice.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Lock and semaphore scripts replaced by ones that answer in another shape ({@code sluice.script.<name>}), on a real
 * {@code redis-server}: every call fails as an unreachable store would, naming the script and where it came from.
 */
class RedisStoreRepliesTest {

    @RegisterExtension
    static final RedisServer REDIS = RedisServer.standalone();

    private RedisConnector connector;

    @AfterEach
    void close() {
        if (connector != null) {
            connector.close();
        }
    }

    @TempDir
    Path dir;

    /** Every lock and semaphore script replaced ({@code sluice.script.<name>}) by one answering {@code reply}. */
    private LockScripts scripts(String reply) throws IOException {
        Map<String, String> overrides = new HashMap<>();
        for (String name : List.of("lock-acquire", "lock-release", "lock-extend", "lock-fence", "semaphore-acquire",
                "semaphore-release", "semaphore-extend", "semaphore-handover")) {
            overrides.put(name, "file:" + Files.writeString(dir.resolve(name + ".lua"), "return " + reply));
        }
        return LockScripts.load(overrides);
    }

    @Test
    void aReplyOfAnotherShapeFailsTheCallNamingTheScript() throws IOException {
        connector = RedisConnector.connect(REDIS.settings());
        ScriptCalls alone = ScriptCalls.alone(ScriptExecutor.of(connector));
        for (String reply : List.of("'yes'", "{1}", "{2, 0, 0}", "7")) {
            LockScripts scripts = scripts(reply);
            RedisLockStore locks = new RedisLockStore(alone, scripts, "sluice:released");
            RedisSemaphoreStore semaphores = new RedisSemaphoreStore(alone, scripts, "sluice:released");
            Map<String, Executable> calls = Map.of(
                    "lock-acquire", () -> locks.tryLock("k", "o", 1000),
                    "lock-release", () -> locks.unlock("k", "o"),
                    "lock-extend", () -> locks.extend("k", "o", 1000),
                    "lock-fence", () -> locks.raiseFence("k:fence", 10),
                    "semaphore-acquire", () -> semaphores.tryAcquire("s", "p", 2, 1000),
                    "semaphore-handover", () -> semaphores.handOver("s", "p", "q", 2, 1000),
                    "semaphore-release", () -> semaphores.release("s", "p"),
                    "semaphore-extend", () -> semaphores.extend("s", "p", 1000));
            calls.forEach((script, call) -> assertThatThrownBy(call::execute).as("%s answering %s", script, reply)
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining(script + " (file:" + dir.resolve(script + ".lua") + ")")
                    .hasMessageContaining("shape"));
        }
    }
}
