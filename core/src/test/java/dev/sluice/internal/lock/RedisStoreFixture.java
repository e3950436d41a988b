package dev.sluice.internal.lock;

import dev.sluice.internal.redis.ChannelSubscriber;

import dev.sluice.internal.config.RedisSettings;
import dev.sluice.internal.redis.LuaScript;
import dev.sluice.internal.redis.RedisConnector;
import dev.sluice.internal.redis.ScriptCalls;
import dev.sluice.internal.redis.ScriptExecutor;
import dev.sluice.test.RedisServer;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Independent instances over one real Redis (standalone or Cluster): each with its own pool, scripts executor,
 * combiner of script calls and subscriber.
 */
final class RedisStoreFixture extends StoreFixture {

    /** Moves one key's expiry (and its permits' expiry scores) back by ARGV[1] ms, as if that much time had passed. */
    private static final LuaScript ELAPSE = LuaScript.of("test-elapse", String.join("\n",
            "local by = tonumber(ARGV[1])",
            "if redis.call('TYPE', KEYS[1]).ok == 'zset' then",
            "  local permits = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')",
            "  for i = 1, #permits, 2 do",
            "    redis.call('ZADD', KEYS[1], tonumber(permits[i + 1]) - by, permits[i])",
            "  end",
            "end",
            "local ttl = redis.call('PTTL', KEYS[1])",
            "if ttl > 0 and ttl <= by then",
            "  redis.call('DEL', KEYS[1])",
            "elseif ttl > 0 then",
            "  redis.call('PEXPIRE', KEYS[1], ttl - by)",
            "end",
            "return 1"), "RedisStoreFixture");

    private final Supplier<RedisSettings> settings;
    private RedisConnector timeMachine;

    RedisStoreFixture(RedisServer redis) {
        this(redis::settings);
    }

    RedisStoreFixture(Supplier<RedisSettings> settings) {
        this.settings = settings;
    }

    @Override
    void elapse(Duration by, String... storeKeys) {
        super.elapse(by, storeKeys);
        if (timeMachine == null) {
            timeMachine = RedisConnector.connect(settings.get());
        }
        ScriptExecutor executor = ScriptExecutor.of(timeMachine);
        for (String key : storeKeys) {
            for (String k : List.of(key, key + ":fence", key + ":waiters")) {
                executor.eval(ELAPSE, List.of(k), List.of(Long.toString(by.toMillis())));
            }
        }
    }

    @Override
    public void close() throws Exception {
        super.close();
        if (timeMachine != null) {
            timeMachine.close();
        }
    }

    @Override
    Parts newParts() {
        RedisConnector connector = RedisConnector.connect(settings.get());
        LockScripts scripts = LockScripts.load(Map.of());
        ScriptExecutor executor = ScriptExecutor.of(connector);
        String channel = LockServices.channel(prefix);
        ReleaseSignals signals = new ReleaseSignals();
        ChannelSubscriber subscriber = LockServices.releaseSubscriber(connector::client, channel, signals);
        try {
            if (!subscriber.awaitSubscribed(5_000)) {
                throw new AssertionError("the release subscriber did not subscribe within 5s");
            }
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        // As an application builds them: lock and semaphore calls combined (standalone; Cluster sends them alone).
        ScriptCalls calls = ScriptCalls.of(executor, connector.mode(), true, ScriptCalls.OnBrokenConnection.FAIL,
                connector::discardIdleConnections);
        return new Parts(new RedisLockStore(calls, scripts, channel), new RedisSemaphoreStore(calls, scripts, channel),
                signals, () -> {
                    subscriber.close();
                    connector.close();
                });
    }
}
