package dev.sluice.internal.http;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntConsumer;

/**
 * What a {@link Verdict} leaves to do once the response status of an admitted request is known: charge the
 * policies that count only some statuses ({@code sluice.limit.<policy>.count}), give back what the request
 * held. The adapter calls {@link #completed(int)} when the response is complete (for an asynchronous request,
 * when its asynchronous cycle ends); a second call does nothing, so an adapter may call it from more than one
 * place. A failing action (Redis unreachable) is logged and does not keep the others from running.
 * Thread-safe.
 */
public final class AfterResponse {

    private static final System.Logger LOG = System.getLogger("dev.sluice");

    /**
     * Request attribute under which the JAX-RS filter leaves its {@code AfterResponse}, so that the servlet filter
     * in front of it (when there is one) completes it also when the response filters do not run: a resource
     * exception no {@code ExceptionMapper} maps reaches the servlet container directly.
     */
    public static final String ATTRIBUTE = "dev.sluice.afterResponse";

    /** Nothing to do after the response. */
    public static final AfterResponse NONE = new AfterResponse(List.of());

    private final List<IntConsumer> actions;
    private final AtomicBoolean done = new AtomicBoolean();

    private AfterResponse(List<IntConsumer> actions) {
        this.actions = actions;
    }

    /** Nothing to do, or one action to run with the status. */
    static AfterResponse of(IntConsumer action) {
        return action == null ? NONE : new AfterResponse(List.of(action));
    }

    /** This, then {@code action} (a new instance; {@code NONE} stays empty). */
    AfterResponse and(IntConsumer action) {
        List<IntConsumer> all = new ArrayList<>(actions);
        all.add(action);
        return new AfterResponse(List.copyOf(all));
    }

    /** Whether there is nothing to do, so that the adapter can skip watching the response. */
    public boolean isEmpty() {
        return actions.isEmpty();
    }

    /**
     * Runs the actions with the response status, the first time only.
     *
     * @param status the status sent (500 when the request ended with an exception and nothing was committed)
     */
    public void completed(int status) {
        if (actions.isEmpty() || !done.compareAndSet(false, true)) {
            return;
        }
        for (IntConsumer action : actions) {
            try {
                action.accept(status);
            } catch (RuntimeException e) {
                LOG.log(Level.DEBUG, "Sluice: after the response (status " + status + "): " + e, e);
            }
        }
    }
}
