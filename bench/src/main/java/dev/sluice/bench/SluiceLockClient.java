package dev.sluice.bench;

/** Sluice's lock client; waits for the locks work to reach main (the runtime does not expose it yet). */
final class SluiceLockClient implements LockClient {

    SluiceLockClient(String redisUri) {
        throw new UnsupportedOperationException("Sluice locks are not on main yet");
    }

    @Override
    public Held acquire(String key) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void close() {
    }
}
