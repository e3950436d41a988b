package dev.sluice.internal.lock;

/** Releases inside transactions on the in-process stores. */
class InProcessTransactionalReleaseContractTest extends TransactionalReleaseContractTest {

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
