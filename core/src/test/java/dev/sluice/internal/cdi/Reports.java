package dev.sluice.internal.cdi;

import dev.sluice.Bounded;
import dev.sluice.Locked;
import jakarta.enterprise.context.ApplicationScoped;

/** A method guarded by both a lock and a semaphore. */
@ApplicationScoped
public class Reports {

    @Locked(key = "report:{0}", maxWait = "20s")
    @Bounded(value = "reports", permits = 1, maxWait = "20s")
    public String build(String customer) {
        return "report of " + customer;
    }
}
