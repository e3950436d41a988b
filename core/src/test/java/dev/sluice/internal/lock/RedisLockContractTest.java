package dev.sluice.internal.lock;

import dev.sluice.test.RedisServer;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The lock contract on a real Redis: services with separate pools, as separate JVMs would have. */
class RedisLockContractTest extends LockContractTest {

    @RegisterExtension
    static RedisServer redis = RedisServer.standalone();

    @Override
    StoreFixture fixture() {
        return new RedisStoreFixture(redis);
    }
}
