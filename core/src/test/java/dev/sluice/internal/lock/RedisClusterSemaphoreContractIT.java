package dev.sluice.internal.lock;

import dev.sluice.test.RedisCluster;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The semaphore contract on a real three-master Redis Cluster. */
class RedisClusterSemaphoreContractIT extends SemaphoreContractTest {

    @RegisterExtension
    static final RedisCluster CLUSTER = RedisCluster.threeMasters();

    @Override
    StoreFixture fixture() {
        return new RedisStoreFixture(CLUSTER::settings);
    }
}
