package dev.sluice.internal.limit;

import dev.sluice.StoreUnavailableException;
import dev.sluice.internal.redis.ChannelSubscriber;
import dev.sluice.internal.redis.RedisConnector;

import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Gives a client of one policy its whole burst back on every node at once: deletes the policy's bucket for the
 * key in the store and tells every node to forget its cached refusal of it ({@link DenyCache#forget}), through
 * the channel {@code <prefix>:reset} on which each node subscribes (with {@link ChannelSubscriber}, as for
 * lock releases) once its deny cache remembered a first refusal. The in-process store has one node: its bucket
 * and cache entry go. Permits of concurrency limits are left alone: their requests are still in flight.
 *
 * <p>A node that misses a message (its subscription was being established, or re-established) trusts no entry
 * longer than {@link DenyCache#MAX_TRUST_MILLIS}, and forgets everything it cached when it is subscribed again.
 * Thread-safe; closed with the application's runtime.
 */
public final class BucketResets implements AutoCloseable {

    private final RateLimitEngine engine;
    private final RedisConnector redis;
    private final String channel;
    private ChannelSubscriber subscriber;
    private boolean closed;

    /**
     * @param redis the application's Redis; null for the in-process store
     */
    public BucketResets(RateLimitEngine engine, RedisConnector redis, String keyPrefix) {
        this.engine = engine;
        this.redis = redis;
        this.channel = channel(keyPrefix);
        if (redis != null) {
            engine.denials().onFirstRefusal(this::listen);
        }
    }

    /** The channel of an application's resets: {@code <prefix>:reset}; its messages are bucket keys. */
    public static String channel(String keyPrefix) {
        return keyPrefix + ":reset";
    }

    private synchronized void listen() {
        if (closed || subscriber != null) {
            return;
        }
        DenyCache denials = engine.denials();
        AtomicBoolean first = new AtomicBoolean(true);
        // After a lost subscription resets may have been missed: forget everything. Not on the first one: what
        // was cached before it is at most MAX_TRUST_MILLIS old, like anything a missed message leaves.
        Runnable resubscribed = () -> {
            if (!first.getAndSet(false)) {
                denials.clear();
            }
        };
        subscriber = new ChannelSubscriber(System.getLogger("dev.sluice"), redis::client, channel, denials::forget, resubscribed,
                "cached refusals are trusted no longer than " + DenyCache.MAX_TRUST_MILLIS / 1000 + " s");
    }

    /**
     * Deletes {@code policy}'s bucket for {@code rawKey} and makes every node forget its refusal.
     *
     * @param rawKey the key as the policy derives it from requests ({@code 203.0.113.7}, {@code user:alice}),
     *               escaped here like every key
     * @return how many nodes' subscriptions received the reset (those that cached a refusal since they started;
     *         in Redis Cluster, those connected to the node that took it); 0 for the in-process store
     * @throws StoreUnavailableException when Redis could not be reached; nothing may have been reset
     */
    public long reset(String policy, String rawKey) {
        if (rawKey == null || rawKey.isEmpty()) {
            throw new IllegalArgumentException("a reset of policy '" + policy + "' needs a key");
        }
        String key = engine.bucketKey(policy, rawKey);
        long told = 0;
        if (redis == null) {
            if (engine.store() instanceof InProcessRateLimitStore local) {
                local.reset(key);
            }
        } else {
            try {
                UnifiedJedis client = redis.client();
                client.del(key);
                // after the delete: a node that forgets and asks again finds the bucket full
                told = client.publish(channel, key);
            } catch (JedisException e) {
                throw new StoreUnavailableException("Sluice could not reset a bucket of policy '" + policy
                        + "': " + e.getMessage(), e);
            }
        }
        engine.denials().forget(key);
        return told;
    }

    /** Whether this node is subscribed to resets, waiting up to {@code timeoutMillis} (tests). */
    boolean awaitListening(long timeoutMillis) throws InterruptedException {
        ChannelSubscriber s;
        synchronized (this) {
            s = subscriber;
        }
        return s != null && s.awaitSubscribed(timeoutMillis);
    }

    @Override
    public void close() {
        ChannelSubscriber s;
        synchronized (this) {
            closed = true;
            s = subscriber;
            subscriber = null;
        }
        if (s != null) {
            s.close();
        }
    }
}
