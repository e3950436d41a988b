package dev.sluice.internal.lock;

/** The lock contract on the in-process store: services of one JVM sharing one store and its signals. */
class InProcessLockContractTest extends LockContractTest {

    @Override
    StoreFixture fixture() {
        ReleaseSignals signals = new ReleaseSignals();
        InProcessLockStore locks = new InProcessLockStore(signals);
        InProcessSemaphoreStore semaphores = new InProcessSemaphoreStore(signals);
        return new StoreFixture() {
            @Override
            Parts newParts() {
                return new Parts(locks, semaphores, signals, () -> { });
            }
        };
    }
}
