package dev.sluice.internal.lock;

import dev.sluice.internal.lease.Watchdog;
import dev.sluice.SluiceException;
import dev.sluice.internal.config.RedisSettings;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.metrics.SluiceMetrics;
import dev.sluice.internal.redis.ChannelSubscriber;
import dev.sluice.internal.redis.CircuitBreaker;
import dev.sluice.internal.redis.RedisConnector;
import dev.sluice.internal.redis.ScriptCalls;
import dev.sluice.internal.redis.ScriptExecutor;
import dev.sluice.internal.tx.Transactions;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Builds the {@link LockService} of an application from the parts its runtime hands over (configuration,
 * Redis connection, metrics, circuit breaker), so that locks know nothing of the runtime: the in-process stores
 * when no Redis is configured; otherwise the Redis stores on the application's pool with one release subscriber;
 * with {@code sluice.redis.redlock-nodes}, locks over those masters (one client and one subscriber each) while
 * semaphores stay on the application's Redis. The watchdog (the container's managed scheduler when there is
 * one) also runs the clean-ups; the server's JTA registry, when there is one, makes releases inside a transaction
 * wait for its completion. Stateless.
 */
public final class LockServices {

    private LockServices() {
    }

    /**
     * The lock service of an application; the caller closes it with the application's runtime.
     *
     * @param redis   the application's connection; empty for the in-process store
     * @param breaker the application's circuit breaker, which lock and semaphore calls share with rate limits
     */
    public static LockService create(SluiceConfig config, Optional<RedisConnector> redis, SluiceMetrics metrics,
                                     CircuitBreaker breaker) {
        Watchdog watchdog = Watchdog.create(System::nanoTime);
        LockService.Options options = new LockService.Options(LockService.DEFAULT_MAX_POLL_MILLIS, metrics, breaker,
                Transactions.ofServer());
        if (config.redis().mode() == RedisSettings.Mode.IN_PROCESS) {
            ReleaseSignals signals = new ReleaseSignals();
            return new LockService(new InProcessLockStore(signals), new InProcessSemaphoreStore(signals), signals,
                    watchdog, config.keyPrefix(), options);
        }
        RedisConnector connector = redis.orElseThrow(() -> new SluiceException(
                "Sluice: Redis is configured but this application has no Redis connection"));
        return redis(connector, config, watchdog, options);
    }

    /** The release channel of an application: {@code <prefix>:released}; its messages are store keys. */
    public static String channel(String keyPrefix) {
        return keyPrefix + ":released";
    }

    /** A lock service on {@code redis} (and on the Redlock masters when configured), on its own (tests). */
    public static LockService redis(RedisConnector redis, SluiceConfig config, Watchdog watchdog) {
        return redis(redis, config, watchdog, LockService.Options.of(watchdog, LockService.DEFAULT_MAX_POLL_MILLIS));
    }

    /** A lock service on {@code redis} (and on the Redlock masters when configured). */
    public static LockService redis(RedisConnector redis, SluiceConfig config, Watchdog watchdog,
                                    LockService.Options options) {
        LockScripts scripts = LockScripts.load(config.scripts());
        ScriptExecutor executor = ScriptExecutor.of(redis);
        executor.preload(scripts.all());
        String channel = channel(config.keyPrefix());
        ReleaseSignals signals = new ReleaseSignals();
        List<AutoCloseable> resources = new ArrayList<>();
        resources.add(releaseSubscriber(redis::client, channel, signals));
        // Locks and semaphores share one combiner, so a batch may mix their calls. A lost reply is never resent:
        // the caller decides what it means, as for a call sent on its own.
        ScriptCalls calls = ScriptCalls.of(executor, redis.mode(), config.redis().pipelining(),
                ScriptCalls.OnBrokenConnection.FAIL, redis::discardIdleConnections);
        LockStore locks;
        if (config.redis().redlockNodes().isEmpty()) {
            locks = new RedisLockStore(calls, scripts, channel);
        } else {
            locks = redlock(config, scripts, channel, signals, resources);
        }
        SemaphoreStore semaphores = new RedisSemaphoreStore(calls, scripts, channel);
        return new LockService(closing(locks, resources), semaphores, signals, watchdog, config.keyPrefix(), options);
    }

    private static LockStore redlock(SluiceConfig config, LockScripts scripts, String channel,
                                     ReleaseSignals signals, List<AutoCloseable> resources) {
        List<LockStore> masters = new ArrayList<>();
        List<RedlockStore.FenceWriter> fences = new ArrayList<>();
        for (RedisSettings node : config.redis().redlockNodes()) {
            RedisConnector master = RedisConnector.connect(node);
            resources.add(master);
            ScriptExecutor executor = ScriptExecutor.of(master);
            executor.preload(scripts.all());
            resources.add(releaseSubscriber(master::client, channel, signals));
            RedisLockStore store = new RedisLockStore(ScriptCalls.alone(executor), scripts, channel);
            masters.add(store);
            fences.add(store::raiseFence);
        }
        return new RedlockStore(masters, fences, config.redis().timeout().toMillis());
    }

    /** A lock store that also closes the subscribers and clients it depends on. */
    private static LockStore closing(LockStore store, List<AutoCloseable> resources) {
        return new LockStore() {
            @Override
            public Attempt tryLock(String key, String owner, long leaseMillis) {
                return store.tryLock(key, owner, leaseMillis);
            }

            @Override
            public boolean unlock(String key, String owner) {
                return store.unlock(key, owner);
            }

            @Override
            public Handover handOver(String key, String holder, String next, long leaseMillis) {
                return store.handOver(key, holder, next, leaseMillis);
            }

            @Override
            public boolean extend(String key, String owner, long leaseMillis) {
                return store.extend(key, owner, leaseMillis);
            }

            @Override
            public long validityMillis(long leaseMillis) {
                return store.validityMillis(leaseMillis);
            }

            @Override
            public void close() {
                store.close();
                for (int i = resources.size() - 1; i >= 0; i--) {
                    try {
                        resources.get(i).close();
                    } catch (Exception ignored) {
                        // Closing on undeploy: nothing left to do about a failure here.
                    }
                }
            }
        };
    }

    /**
     * The subscriber to a release channel: a released key wakes this node's waiters for it, and after a lost
     * subscription every waiter tries again (releases may have been missed).
     */
    static ChannelSubscriber releaseSubscriber(java.util.function.Supplier<redis.clients.jedis.UnifiedJedis> client,
                                               String channel, ReleaseSignals signals) {
        return new ChannelSubscriber(System.getLogger("dev.sluice.lock"), client, channel, signals::signal,
                signals::signalAll, "lock waiters poll until it is back");
    }
}
