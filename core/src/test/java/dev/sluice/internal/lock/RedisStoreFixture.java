package dev.sluice.internal.lock;

import dev.sluice.internal.redis.RedisConnector;
import dev.sluice.internal.redis.ScriptExecutor;
import dev.sluice.test.RedisServer;

import java.util.Map;

/** Independent instances over one real Redis: each with its own pool, scripts executor and subscriber. */
final class RedisStoreFixture extends StoreFixture {

    private final RedisServer redis;

    RedisStoreFixture(RedisServer redis) {
        this.redis = redis;
    }

    @Override
    Parts newParts() {
        RedisConnector connector = RedisConnector.connect(redis.settings());
        LockScripts scripts = LockScripts.load(Map.of());
        ScriptExecutor executor = ScriptExecutor.of(connector);
        String channel = LockServices.channel(prefix);
        ReleaseSignals signals = new ReleaseSignals();
        RedisReleaseSubscriber subscriber = new RedisReleaseSubscriber(connector::client, channel, signals);
        try {
            if (!subscriber.awaitSubscribed(5_000)) {
                throw new AssertionError("the release subscriber did not subscribe within 5s");
            }
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        return new Parts(new RedisLockStore(executor, scripts, channel), new RedisSemaphoreStore(executor, scripts, channel),
                signals, () -> {
                    subscriber.close();
                    connector.close();
                });
    }
}
