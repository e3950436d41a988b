package dev.sluice.internal.redis;

import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.providers.SentineledConnectionProvider;

import java.lang.System.Logger.Level;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Makes sure the listener threads of a closed Sentinel client end, which Jedis 7.5 alone does not when closed early.
 * Jedis keeps them in a private field, so they are reached by reflection; if its internals change, nothing is found
 * and nothing is done (the threads are daemons: they only pin the class loader). Stateless.
 */
final class SentinelListeners {

    private static final System.Logger LOG = System.getLogger(RedisConnector.class.getName());
    private static final Duration LISTENER_STOP_BOUND = Duration.ofSeconds(5);
    private static final Duration LISTENER_RECHECK = Duration.ofMillis(100);

    private SentinelListeners() {
    }

    /**
     * Jedis 7.5's sentinel listeners can outlive {@code close()}: a listener thread that had not yet started when
     * it was shut down sets itself running again when it starts, and one that was opening a new connection
     * subscribes on it after its old one was closed. Either keeps a daemon thread and a sentinel connection, and
     * pins the application's class loader after an undeploy. So after closing, each listener still alive is shut
     * down again until it ends (a shutdown closes its current connection, which ends its subscription), at most
     * for {@link #LISTENER_STOP_BOUND}; one still sleeping between reconnections after that is interrupted.
     */
    static void stopStragglers(List<Thread> listeners) {
        long deadline = System.nanoTime() + LISTENER_STOP_BOUND.toNanos();
        for (Thread listener : listeners) {
            try {
                while (listener.isAlive() && System.nanoTime() < deadline) {
                    listener.join(LISTENER_RECHECK.toMillis());
                    if (listener.isAlive()) {
                        Method shutdown = listener.getClass().getMethod("shutdown");
                        shutdown.setAccessible(true); // a public method of a protected inner class
                        shutdown.invoke(listener);
                    }
                }
                if (listener.isAlive()) {
                    listener.interrupt();
                    LOG.log(Level.WARNING, "Sluice: the Redis sentinel listener " + listener.getName()
                            + " did not stop when the connection was closed; interrupted it");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (ReflectiveOperationException | RuntimeException e) {
                LOG.log(Level.DEBUG, "Sluice could not stop the sentinel listener " + listener.getName(), e);
            }
        }
    }

    /** The listener threads of a Sentinel client (none for other clients, or if Jedis's internals changed). */
    static List<Thread> of(UnifiedJedis client) {
        if (!(client instanceof RedisSentinelClient)) {
            return List.of();
        }
        try {
            Field providerField = UnifiedJedis.class.getDeclaredField("provider");
            providerField.setAccessible(true);
            Object provider = providerField.get(client);
            if (provider instanceof SentineledConnectionProvider) {
                Field listenersField = SentineledConnectionProvider.class.getDeclaredField("sentinelListeners");
                listenersField.setAccessible(true);
                List<Thread> listeners = new ArrayList<>();
                for (Object listener : (Collection<?>) listenersField.get(provider)) {
                    if (listener instanceof Thread thread) {
                        listeners.add(thread);
                    }
                }
                return listeners;
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.log(Level.DEBUG, "Sluice cannot see the sentinel listeners of this Jedis version", e);
        }
        return List.of();
    }
}
