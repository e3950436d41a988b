package dev.sluice.sample;

import java.util.concurrent.atomic.AtomicInteger;

import dev.sluice.Bounded;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * A slow, memory-hungry job (think PDF rendering) that may run at most twice at a time across the
 * whole cluster. Counts how many renders were ever running at once, as evidence.
 *
 * <p>Thread-safe; application scoped.
 */
@ApplicationScoped
public class Renderer {

    /** The render is slow on purpose: that is what the limit protects. */
    static final long RENDER_MILLIS = 300;

    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger mostAtOnce = new AtomicInteger();
    private final AtomicInteger finished = new AtomicInteger();

    /**
     * Renders a document, waiting up to 30 s for one of the 2 permits.
     *
     * @throws dev.sluice.PermitNotAcquiredException when no permit came free in time
     */
    @Bounded(value = "render", permits = 2, maxWait = "30s")
    public String render(String document) throws InterruptedException {
        int now = running.incrementAndGet();
        mostAtOnce.accumulateAndGet(now, Math::max);
        try {
            Thread.sleep(RENDER_MILLIS);
            return "rendered " + document + "\n";
        } finally {
            running.decrementAndGet();
            finished.incrementAndGet();
        }
    }

    /** A line-per-fact report. */
    public String report() {
        return "finished=" + finished.get() + "\n"
                + "mostAtOnce=" + mostAtOnce.get() + "\n"
                + "permits=2\n";
    }
}
