package dev.sluice.internal.lock;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@link WaitQueue}s of one lock service, one per store key while it is used: an acquisition enters the key's
 * queue and leaves it when it gives up, or its holder leaves it once it has given back, so that every thread of
 * this JVM waiting for a key finds the same queue and an unused one is dropped. Thread-safe.
 */
final class WaitQueues {

    private final Map<String, WaitQueue> queues = new ConcurrentHashMap<>();

    /**
     * The queue of {@code storeKey}, counted as used until {@link #leave}.
     *
     * @param turnLastsThroughHold true for a lock key, false for a semaphore key
     */
    WaitQueue enter(String storeKey, boolean turnLastsThroughHold) {
        return queues.compute(storeKey, (k, q) -> {
            WaitQueue queue = q == null ? new WaitQueue(turnLastsThroughHold) : q;
            queue.users++;
            return queue;
        });
    }

    void leave(String storeKey, WaitQueue queue) {
        queues.computeIfPresent(storeKey, (k, q) -> q == queue && --q.users == 0 ? null : q);
    }

    /** The queue of {@code storeKey} while it is used, else null (tests, diagnostics). */
    WaitQueue get(String storeKey) {
        return queues.get(storeKey);
    }
}
