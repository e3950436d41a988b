package dev.sluice.internal.redis;

import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.UnifiedJedis;

import java.lang.System.Logger.Level;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * One subscriber to one channel whose messages are store keys: a daemon thread holding one connection in
 * {@code SUBSCRIBE}, handing every message to its action. When the connection drops it reconnects with backoff
 * (100 ms doubling to 5 s) and, once subscribed again, runs its {@code onSubscribed} action, since messages may have
 * been missed meanwhile. Locks and semaphores use one for their release channel (a released key wakes its local
 * waiters, who do not depend on it for correctness: each also polls within the holder's remaining lease), rate
 * limits one for their reset channel (a reset key leaves every node's deny cache).
 *
 * <p>Thread-safe; {@link #close()} unsubscribes and stops the thread.
 */
public final class ChannelSubscriber implements AutoCloseable {

    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final long MIN_BACKOFF_MILLIS = 100;
    private static final long MAX_BACKOFF_MILLIS = 5_000;
    /**
     * Minimum time between two log lines of the same direction, as for Redis' own reachability: a subscription
     * that flaps (a proxy closing idle connections, a server killing subscribers) cannot flood the log; the
     * losses and returns in between go to DEBUG.
     */
    static final long QUIET_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final System.Logger log;
    private final Supplier<UnifiedJedis> client;
    private final String channel;
    private final Consumer<String> onMessage;
    private final Runnable onSubscribed;
    private final String meanwhile;
    private final Thread thread;
    private final LongSupplier nanoClock;
    private final CountDownLatch firstSubscription = new CountDownLatch(1);
    private volatile boolean closed;
    private volatile JedisPubSub current;
    // Only the subscriber thread reads and writes these, in run() and in onSubscribe, which it runs.
    /** Whether the loss going on was told (at WARNING or, within the quiet time, at DEBUG). */
    private boolean warned;
    private long lastLossLog;
    private long lastReturnLog;
    /** The wait before the next attempt: doubles while attempts fail, back to the minimum once subscribed. */
    private long backoff = MIN_BACKOFF_MILLIS;

    /**
     * Starts subscribing at once to a channel whose messages are store keys.
     *
     * @param log          where the lost and regained subscription are told
     * @param client       supplies the client to borrow the subscription connection from (it may throw while Redis
     *                     is unreachable)
     * @param channel      the channel the scripts publish to
     * @param onMessage    runs with each message's key
     * @param onSubscribed runs whenever the subscription is (again) in place, and after it is lost: messages may
     *                     have been missed meanwhile
     * @param meanwhile    what copes while the subscription is lost, for the warning
     */
    public ChannelSubscriber(System.Logger log, Supplier<UnifiedJedis> client, String channel,
                             Consumer<String> onMessage, Runnable onSubscribed, String meanwhile) {
        this(log, client, channel, onMessage, onSubscribed, meanwhile, System::nanoTime);
    }

    /** As above, with the clock that spaces the log lines (tests). */
    ChannelSubscriber(System.Logger log, Supplier<UnifiedJedis> client, String channel, Consumer<String> onMessage,
                      Runnable onSubscribed, String meanwhile, LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
        this.lastLossLog = nanoClock.getAsLong() - QUIET_NANOS;
        this.lastReturnLog = lastLossLog;
        this.log = log;
        this.client = client;
        this.channel = channel;
        this.onMessage = onMessage;
        this.onSubscribed = onSubscribed;
        this.meanwhile = meanwhile;
        this.thread = new Thread(this::run, "sluice-subscriber-" + THREADS.incrementAndGet());
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        while (!closed) {
            JedisPubSub pubSub = new JedisPubSub() {
                @Override
                public void onSubscribe(String ch, int subscribedChannels) {
                    firstSubscription.countDown();
                    backoff = MIN_BACKOFF_MILLIS;
                    if (warned) {
                        // Told here, not when subscribe() returns: a subscription that is lost again throws out
                        // of subscribe() without returning, and its loss must be told as well.
                        long now = nanoClock.getAsLong();
                        boolean quiet = now - lastReturnLog < QUIET_NANOS;
                        lastReturnLog = quiet ? lastReturnLog : now;
                        log.log(quiet ? Level.DEBUG : Level.INFO, "Sluice: subscribed to " + channel + " again");
                        warned = false;
                    }
                    // Anything released while we were not listening would otherwise wait for the poll.
                    onSubscribed.run();
                }

                @Override
                public void onMessage(String ch, String key) {
                    onMessage.accept(key);
                }
            };
            current = pubSub;
            try {
                client.get().subscribe(pubSub, channel);
            } catch (RuntimeException e) {
                if (closed) {
                    return;
                }
                if (!warned) {
                    long now = nanoClock.getAsLong();
                    boolean quiet = now - lastLossLog < QUIET_NANOS;
                    lastLossLog = quiet ? lastLossLog : now;
                    log.log(quiet ? Level.DEBUG : Level.WARNING, "Sluice: lost the subscription to " + channel + " ("
                            + e.getMessage() + "); " + meanwhile);
                    warned = true;
                }
                onSubscribed.run();
                try {
                    Thread.sleep(backoff);
                } catch (InterruptedException interrupted) {
                    return;
                }
                backoff = Math.min(backoff * 2, MAX_BACKOFF_MILLIS);
            }
        }
    }

    /** Waits until the first subscription is in place (tests, and callers that want prompt hand-offs). */
    public boolean awaitSubscribed(long timeoutMillis) throws InterruptedException {
        return firstSubscription.await(timeoutMillis, TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        closed = true;
        JedisPubSub pubSub = current;
        if (pubSub != null && pubSub.isSubscribed()) {
            try {
                pubSub.unsubscribe();
            } catch (RuntimeException ignored) {
                // The connection is already gone; the thread ends by itself.
            }
        }
        thread.interrupt();
        try {
            thread.join(1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
