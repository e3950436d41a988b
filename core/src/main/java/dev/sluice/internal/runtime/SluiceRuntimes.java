package dev.sluice.internal.runtime;

import dev.sluice.internal.config.RedisSettings;
import dev.sluice.internal.config.SluiceConfig;

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

    /** The runtime for this application and configuration, started on first use. Pair with {@link #release}. */
    public static synchronized SluiceRuntime acquire(ClassLoader application, SluiceConfig config) {
        Key key = new Key(application, config.redis(), config.keyPrefix(), config.scripts());
        Shared shared = RUNTIMES.get(key);
        if (shared == null || shared.runtime.isClosed()) {
            shared = new Shared(SluiceRuntime.start(config));
            RUNTIMES.put(key, shared);
        }
        shared.users++;
        return shared.runtime;
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
