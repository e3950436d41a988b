package dev.sluice.internal.http;

import java.util.function.IntSupplier;

/**
 * Completes an {@link AfterResponse} when an asynchronous request's cycle ends, however it ends: completed, timed
 * out or failed (the container follows the last two with completion), with the status the response has then. Each
 * adapter forwards its container's events here from a thin listener (a servlet {@code AsyncListener}; core names no
 * servlet type): {@link #ended()} on completion, nothing on a timeout or an error, and, when the request starts a
 * new asynchronous cycle, the listener registers itself again, since a listener hears only the cycle it was added
 * to. Completing twice does nothing ({@link AfterResponse#completed}). Immutable and thread-safe.
 *
 * @param after  what the verdict leaves to do after the response
 * @param status the response status when the cycle ends (read then, or fixed by the adapter)
 */
public record AsyncCycleEnd(AfterResponse after, IntSupplier status) {

    /** The asynchronous cycle completed: runs {@code after} with the status. */
    public void ended() {
        after.completed(status.getAsInt());
    }
}
