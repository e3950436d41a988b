package dev.sluice.internal.lock;

import dev.sluice.StoreUnavailableException;
import dev.sluice.internal.redis.LuaScript;
import dev.sluice.internal.redis.RedisConnector;
import dev.sluice.internal.redis.ScriptExecutor;
import dev.sluice.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.function.Executable;

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

    private static LuaScript answering(String name, String reply) {
        return LuaScript.of(name, "return " + reply, "file:/etc/sluice/" + name + ".lua");
    }

    private LockScripts scripts(String reply) {
        return new LockScripts(answering("lock-acquire", reply), answering("lock-release", reply),
                answering("lock-extend", reply), answering("lock-fence", reply), answering("semaphore-acquire", reply),
                answering("semaphore-release", reply), answering("semaphore-extend", reply),
                answering("semaphore-handover", reply));
    }

    @Test
    void aReplyOfAnotherShapeFailsTheCallNamingTheScript() {
        connector = RedisConnector.connect(REDIS.settings());
        ScriptExecutor executor = ScriptExecutor.of(connector);
        for (String reply : List.of("'yes'", "{1}", "{2, 0, 0}", "7")) {
            RedisLockStore locks = new RedisLockStore(executor, scripts(reply), "sluice:released");
            RedisSemaphoreStore semaphores = new RedisSemaphoreStore(executor, scripts(reply), "sluice:released");
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
                    .hasMessageContaining(script + " (file:/etc/sluice/" + script + ".lua)")
                    .hasMessageContaining("shape"));
        }
    }
}
