package dev.sluice.internal.lock;

import dev.sluice.test.RedisCluster;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The lock contract on a real three-master Redis Cluster: each lock key and its fencing counter share one hash slot
 * (the braces of {@code <prefix>:lock:{<key>}}), and releases published on one node reach subscribers connected to
 * another.
 */
class RedisClusterLockContractIT extends LockContractTest {

    @RegisterExtension
    static final RedisCluster CLUSTER = RedisCluster.threeMasters();

    @Override
    StoreFixture fixture() {
        return new RedisStoreFixture(CLUSTER::settings);
    }

    /** The overlap check needs contention, not volume; a quarter of the standalone count keeps it to seconds. */
    @Override
    int overlapAcquisitions() {
        return 5_000;
    }
}
