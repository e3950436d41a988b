package dev.sluice.internal.lock;

/** The races of the local queue on the in-process store, which hands over in two steps (release, then contend). */
class InProcessWaitQueueRaceTest extends WaitQueueRaceTest {

    @Override
    StoreFixture fixture() {
        return new InProcessLockContractTest().fixture();
    }
}
