package dev.sluice.internal.lock;

import dev.sluice.internal.config.RedisSettings;
import dev.sluice.internal.redis.RedisConnector;
import dev.sluice.internal.redis.ScriptExecutor;
import dev.sluice.test.RedisServer;

import java.util.Map;
import java.util.function.Supplier;

/**
 * Independent instances over one real Redis (standalone or Cluster): each with its own pool, scripts executor and
 * subscriber.
 */
final class RedisStoreFixture extends StoreFixture {

    private final Supplier<RedisSettings> settings;

    RedisStoreFixture(RedisServer redis) {
        this(redis::settings);
    }

    RedisStoreFixture(Supplier<RedisSettings> settings) {
        this.settings = settings;
    }

    @Override
    Parts newParts() {
        RedisConnector connector = RedisConnector.connect(settings.get());
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
