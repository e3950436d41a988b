package dev.sluice.internal.cdi;

import dev.sluice.Bounded;
import dev.sluice.Locked;
import dev.sluice.test.Jta;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A service whose callers run it inside their own JTA transaction, as an EJB container or a caller's
 * {@code @Transactional} does: the transaction begins before, and commits after, every CDI interceptor.
 */
@ApplicationScoped
public class Sales {

    static final Jta.Row ROW = new Jta.Row(20);
    static final AtomicInteger UNCOMMITTED = new AtomicInteger();
    static final AtomicInteger MOST_UNCOMMITTED = new AtomicInteger();

    /** Read, yield, write: the write becomes visible when the caller's transaction commits. */
    @Locked(key = "sale:{0}", maxWait = "60s")
    public void sell(String item) throws Exception {
        int seen = ROW.committed();
        Thread.yield();
        ROW.write(Jta.narayana().manager().getTransaction(), seen + 1);
    }

    /** Counts the transactions between a permit and their commit. */
    @Bounded(value = "exports", permits = 2, maxWait = "60s")
    public void export() throws Exception {
        MOST_UNCOMMITTED.accumulateAndGet(UNCOMMITTED.incrementAndGet(), Math::max);
        ROW.write(Jta.narayana().manager().getTransaction(), 0, UNCOMMITTED::decrementAndGet);
    }
}
