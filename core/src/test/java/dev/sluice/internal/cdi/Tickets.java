package dev.sluice.internal.cdi;

import dev.sluice.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** The tutorial's ticket service: selling must never overlap for one event. */
@ApplicationScoped
public class Tickets {

    private final Map<Long, Integer> sold = new ConcurrentHashMap<>();

    @Inject
    Seats seats;

    @Locked(key = "event:{0}")
    public int buy(long eventId, int quantity) {
        // Read-yield-write: overlapping buyers of one event would lose sales.
        int before = sold.getOrDefault(eventId, 0);
        Thread.yield();
        sold.put(eventId, before + quantity);
        return before + quantity;
    }

    public int sold(long eventId) {
        return sold.getOrDefault(eventId, 0);
    }

    @Locked(key = "event:{eventId}", maxWait = "0")
    public String byName(long eventId, String who) {
        return who;
    }

    /** Holds the event's lock until {@code release} opens; reentrant calls to {@link Seats} on the same key. */
    @Locked(key = "event:{0}")
    public boolean holdWhile(long eventId, CountDownLatch entered, CountDownLatch release) throws InterruptedException {
        entered.countDown();
        return release.await(10, TimeUnit.SECONDS);
    }

    @Locked(key = "event:{0}")
    public int buyWithSeat(long eventId) {
        return seats.reserve(eventId);
    }

    @Locked(maxWait = "30s")
    public void report() {
    }

    @Locked(key = "commit:{0}")
    @FakeTransactional
    public void commitUnderLock(String orderId) {
    }
}
