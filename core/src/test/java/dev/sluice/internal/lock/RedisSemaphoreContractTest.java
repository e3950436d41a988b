package dev.sluice.internal.lock;

import dev.sluice.test.RedisServer;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The semaphore contract on a real Redis. */
class RedisSemaphoreContractTest extends SemaphoreContractTest {

    @RegisterExtension
    static RedisServer redis = RedisServer.standalone();

    @Override
    StoreFixture fixture() {
        return new RedisStoreFixture(redis);
    }
}
