package dev.sluice.jaxrs;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.Suspended;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Resources under the concurrency limit {@code conc} ({@code sluice.limit.conc.concurrency} in the scenarios'
 * settings, beside the inline rate): each stays in flight until the test {@link #finish()}es it, synchronously or suspended.
 */
final class ConcurrencyResources {

    /** Requests that reached a resource and have not finished. */
    static final AtomicInteger IN_FLIGHT = new AtomicInteger();
    private static final AtomicReference<CountDownLatch> FINISH = new AtomicReference<>(new CountDownLatch(1));

    private ConcurrencyResources() {
    }

    static void reset() {
        IN_FLIGHT.set(0);
        FINISH.set(new CountDownLatch(1));
    }

    static void finish() {
        FINISH.get().countDown();
    }

    private static void awaitFinish() {
        try {
            if (!FINISH.get().await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test never finished this request");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Inline rate so that a deployment without the scenarios' settings (package scanning) still has a limit. */
    @Path("conc")
    @RateLimited(value = "conc", rate = "1000/1s")
    public static class Slow {
        @GET
        @Path("sync")
        public String sync() {
            IN_FLIGHT.incrementAndGet();
            try {
                awaitFinish();
                return "done";
            } finally {
                IN_FLIGHT.decrementAndGet();
            }
        }

        @GET
        @Path("async")
        public void async(@Suspended AsyncResponse response) {
            IN_FLIGHT.incrementAndGet();
            Thread worker = new Thread(() -> {
                try {
                    awaitFinish();
                    response.resume("async done");
                } finally {
                    IN_FLIGHT.decrementAndGet();
                }
            }, "conc-async");
            worker.setDaemon(true);
            worker.start();
        }

        @GET
        @Path("mapped-failure")
        public String mappedFailure() {
            throw new WebApplicationException(409);
        }

        @GET
        @Path("unmapped-failure")
        public String unmappedFailure() {
            throw new IllegalStateException("nobody maps this");
        }
    }
}
