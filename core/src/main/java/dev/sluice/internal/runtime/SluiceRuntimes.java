package dev.sluice.internal.runtime;

import dev.sluice.internal.config.RedisSettings;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.metrics.SluiceMetrics;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One {@link SluiceRuntime} per application and Redis target, shared by the servlet filter, the JAX-RS
 * filter and the CDI beans of that application, reference counted and closed when its last user lets
 * go (filter {@code destroy()}, CDI shutdown). Applications are told apart by their class loader, so two
 * WARs in one server never share a pool.
 *
 * <p>Thread-safe.
 */
public final class SluiceRuntimes {

    private record Key(ClassLoader loader, RedisSettings redis, String keyPrefix, Map<String, String> scripts) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.loader == loader && k.redis.equals(redis)
                    && k.keyPrefix.equals(keyPrefix) && k.scripts.equals(scripts);
        }

        @Override
        public int hashCode() {
            return Objects.hash(System.identityHashCode(loader), redis, keyPrefix, scripts);
        }
    }

    private static final class Shared {
        final SluiceRuntime runtime;
        int users;

        Shared(SluiceRuntime runtime) {
            this.runtime = runtime;
        }
    }

    private static final Map<Key, Shared> RUNTIMES = new HashMap<>();

    private SluiceRuntimes() {
    }

    /**
     * The runtime for this application and configuration, started on first use. Pair with {@link #release}.
     * The policy, lock and semaphore names of {@code config} (a filter's init-params may add policies the
     * first user's configuration lacked) are registered in the runtime's metrics.
     */
    public static synchronized SluiceRuntime acquire(ClassLoader application, SluiceConfig config) {
        Key key = new Key(application, config.redis(), config.keyPrefix(), config.scripts());
        Shared shared = RUNTIMES.get(key);
        if (shared == null || shared.runtime.isClosed()) {
            shared = new Shared(SluiceRuntime.start(config, appId(application), application));
            RUNTIMES.put(key, shared);
        }
        shared.runtime.metrics().register(config);
        shared.users++;
        return shared.runtime;
    }

    /**
     * The application's id in metrics: its class loader's name where the server names it (WildFly:
     * {@code deployment.shop.war}), else {@code default}; JMX makes it unique within the server.
     */
    static String appId(ClassLoader application) {
        String name = application == null ? null : application.getName();
        return name == null || name.isBlank() ? SluiceMetrics.DEFAULT_APP : name;
    }

    /** Lets go of a runtime obtained from {@link #acquire}; the last release closes it. */
    public static synchronized void release(SluiceRuntime runtime) {
        var it = RUNTIMES.entrySet().iterator();
        while (it.hasNext()) {
            Shared shared = it.next().getValue();
            if (shared.runtime == runtime) {
                if (--shared.users <= 0) {
                    it.remove();
                    runtime.close();
                }
                return;
            }
        }
    }
}
