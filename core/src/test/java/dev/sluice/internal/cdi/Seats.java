package dev.sluice.internal.cdi;

import dev.sluice.Locked;
import jakarta.enterprise.context.ApplicationScoped;

/** Called by {@link Tickets} under the same event lock: the same thread must re-enter it. */
@ApplicationScoped
public class Seats {

    private int reserved;

    @Locked(key = "event:{0}")
    public int reserve(long eventId) {
        return ++reserved;
    }
}
