package dev.sluice.internal.lock;

/** The races of the local queue on the in-process store, which hands over in two steps (release, then contend). */
class InProcessWaitQueueRaceTest extends WaitQueueRaceTest {

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
