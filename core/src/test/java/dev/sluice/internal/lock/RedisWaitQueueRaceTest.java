package dev.sluice.internal.lock;

import dev.sluice.test.RedisServer;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The races of the local queue on a real Redis, which hands over in one call (lock-acquire.lua given the holder). */
class RedisWaitQueueRaceTest extends WaitQueueRaceTest {

    @RegisterExtension
    static RedisServer redis = RedisServer.standalone();

    @Override
    StoreFixture fixture() {
        return new RedisStoreFixture(redis);
    }
}
