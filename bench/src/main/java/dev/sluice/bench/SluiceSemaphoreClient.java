package dev.sluice.bench;

/** Sluice's semaphore client; waits for the locks work to reach main (the runtime does not expose it yet). */
final class SluiceSemaphoreClient implements SemaphoreClient {

    SluiceSemaphoreClient(String redisUri, int permits) {
        throw new UnsupportedOperationException("Sluice semaphores are not on main yet");
    }

    @Override
    public void acquireRelease() {
        throw new UnsupportedOperationException();
    }

    @Override
    public void close() {
    }
}
