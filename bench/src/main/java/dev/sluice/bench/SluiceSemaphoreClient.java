package dev.sluice.bench;

import dev.sluice.DistributedSemaphore;
import dev.sluice.Permit;
import dev.sluice.Sluice;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.runtime.SluiceRuntime;

import java.time.Duration;
import java.util.Map;

/**
 * Sluice's {@link DistributedSemaphore} as {@code Sluice.semaphore(name, permits)} hands it out:
 * {@code acquire(lease, maxWait)}, the permit's lease renewed by the watchdog while held, then {@code close()}.
 */
final class SluiceSemaphoreClient implements SemaphoreClient {

    private static final Duration MAX_WAIT = Duration.ofMinutes(1);

    private final SluiceRuntime runtime;
    private final DistributedSemaphore semaphore;

    SluiceSemaphoreClient(String redisUri, int permits) {
        runtime = SluiceRuntime.start(SluiceConfigLoader.load(ConfigSources.of(Map.of(
                "sluice.redis.uri", redisUri,
                "sluice.redis.pool.max-total", String.valueOf(BenchEnv.POOL_SIZE)))));
        semaphore = runtime.locks().semaphore("bench", permits);
    }

    @Override
    public void acquireRelease() {
        Permit permit = semaphore.acquire(Sluice.DEFAULT_LEASE, MAX_WAIT);
        permit.close();
    }

    @Override
    public void close() {
        runtime.close();
    }
}
