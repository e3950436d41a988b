package dev.sluice.internal.lock;

/** The semaphore contract on the in-process store. */
class InProcessSemaphoreContractTest extends SemaphoreContractTest {

    @Override
    StoreFixture fixture() {
        return new InProcessLockContractTest().fixture();
    }
}
