package dev.sluice.internal.lock;

/** The lock contract on the in-process store: services of one JVM sharing one store and its signals. */
class InProcessLockContractTest extends LockContractTest {

    @Override
    StoreFixture fixture() {
        return new StoreFixture() {
            private final ReleaseSignals signals = new ReleaseSignals();
            private final InProcessLockStore locks = new InProcessLockStore(clock::micros, signals);
            private final InProcessSemaphoreStore semaphores = new InProcessSemaphoreStore(clock::micros, signals);

            @Override
            Parts newParts() {
                return new Parts(locks, semaphores, signals, () -> { });
            }
        };
    }
}
