package dev.sluice.internal.lock;

import dev.sluice.internal.config.RedisSettings;
import dev.sluice.internal.runtime.SluiceRuntime;

/**
 * Builds the {@link LockService} of a runtime from its configuration: the in-process stores when no Redis
 * is configured. Stateless.
 */
public final class LockServices {

    private LockServices() {
    }

    /** The lock service for {@code runtime}; the caller closes it with the runtime. */
    public static LockService create(SluiceRuntime runtime) {
        RedisSettings redis = runtime.config().redis();
        String prefix = runtime.config().keyPrefix();
        if (redis.mode() == RedisSettings.Mode.IN_PROCESS) {
            ReleaseSignals signals = new ReleaseSignals();
            return new LockService(new InProcessLockStore(signals), new InProcessSemaphoreStore(signals), signals,
                    Watchdog.create(), prefix);
        }
        throw new UnsupportedOperationException("Redis locks not wired yet");
    }
}
