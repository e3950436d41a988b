package dev.sluice.internal.cdi;

import dev.sluice.Locked;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.concurrent.atomic.AtomicInteger;

/** Settles orders under a lock keyed by the order's id; counts how many callers were ever inside at once. */
@ApplicationScoped
public class Orders {

    /** An order as many applications write it: equal ids, no toString() of its own. */
    public static final class Order {
        private final long id;

        public Order(long id) {
            this.id = id;
        }

        public long getId() {
            return id;
        }
    }

    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger maxInside = new AtomicInteger();
    private int settled;

    /** Read, sleep, write: without exclusion, overlapping callers lose updates. */
    @Locked(key = "order:{0.id}", maxWait = "30s")
    public void settle(Order order) throws InterruptedException {
        maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
        int before = settled;
        Thread.sleep(1); // widens the window an overlap needs; the scenario, not synchronisation
        settled = before + 1;
        inside.decrementAndGet();
    }

    @Locked(key = "pair:{0}:{1}", maxWait = "0")
    public String pair(String first, String second) {
        return first + "|" + second;
    }

    public int settled() {
        return settled;
    }

    public int maxInside() {
        return maxInside.get();
    }
}
