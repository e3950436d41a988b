package dev.sluice.internal.lock;

import dev.sluice.test.RedisServer;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Releases inside transactions on a real Redis. */
class RedisTransactionalReleaseContractTest extends TransactionalReleaseContractTest {

    @RegisterExtension
    static RedisServer redis = RedisServer.standalone();

    @Override
    StoreFixture fixture() {
        return new RedisStoreFixture(redis);
    }
}
