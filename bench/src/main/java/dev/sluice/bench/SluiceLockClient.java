package dev.sluice.bench;

import dev.sluice.DistributedLock;
import dev.sluice.LockHandle;
import dev.sluice.Sluice;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.lock.LockService;
import dev.sluice.internal.runtime.SluiceRuntime;

import java.time.Duration;
import java.util.Map;

/**
 * Sluice's {@link DistributedLock} as {@code Sluice.lock(key)} hands it out (the CDI bean delegates to the
 * runtime's {@link LockService}, as here): {@code acquire(lease, maxWait)} with the default lease, renewed by
 * the watchdog while held, then {@code close()}.
 */
final class SluiceLockClient implements LockClient {

    /** Long enough never to give up inside a benchmark: waiting is what the contended runs measure. */
    private static final Duration MAX_WAIT = Duration.ofMinutes(1);

    private final SluiceRuntime runtime;
    private final LockService locks;

    SluiceLockClient(String redisUri) {
        runtime = SluiceRuntime.start(SluiceConfigLoader.load(ConfigSources.of(Map.of(
                "sluice.redis.uri", redisUri,
                "sluice.redis.pool.max-total", String.valueOf(BenchEnv.POOL_SIZE)))));
        locks = runtime.locks();
    }

    @Override
    public Held acquire(String key) {
        LockHandle handle = locks.lock(key).acquire(Sluice.DEFAULT_LEASE, MAX_WAIT);
        return handle::close;
    }

    @Override
    public void close() {
        runtime.close();
    }
}
