package dev.sluice.bench;

/**
 * One library's distributed lock as a benchmark drives it: acquire (waiting as long as it takes), release.
 * Thread-safe.
 */
interface LockClient extends AutoCloseable {

    /** A held lock; closing releases it. */
    interface Held extends AutoCloseable {
        @Override
        void close();
    }

    /** Acquires the lock on {@code key}, waiting as long as it takes. */
    Held acquire(String key);

    /** Acquires the lock on {@code key}, then releases it. */
    default void lockUnlock(String key) {
        acquire(key).close();
    }

    @Override
    void close();

    static LockClient open(String library, String redisUri) {
        return switch (library) {
            case Libraries.SLUICE -> new SluiceLockClient(redisUri);
            case Libraries.REDISSON -> new RedissonLockClient(redisUri);
            case Libraries.LOCK_FLOOR -> new RawLockClient(redisUri);
            default -> throw new IllegalArgumentException("no lock benchmark for " + library);
        };
    }
}
