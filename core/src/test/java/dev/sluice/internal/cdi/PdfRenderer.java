package dev.sluice.internal.cdi;

import dev.sluice.Bounded;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** The tutorial's renderer: the external service allows only a few concurrent calls. */
@ApplicationScoped
public class PdfRenderer {

    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger maxInside = new AtomicInteger();

    /** Declares one permit; the test's config raises it to three. */
    @Bounded(value = "pdf", permits = 1, maxWait = "20s")
    public void renderTogether(CyclicBarrier allInside, CyclicBarrier leave) throws Exception {
        allInside.await(10, TimeUnit.SECONDS);
        leave.await(10, TimeUnit.SECONDS);
    }

    @Bounded(value = "render", permits = 2, maxWait = "30s")
    public void render() {
        maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
        Thread.yield();
        inside.decrementAndGet();
    }

    public int maxInside() {
        return maxInside.get();
    }
}
