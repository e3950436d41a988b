package dev.sluice.jaxrs;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.Suspended;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.StreamingOutput;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseEventSink;

import org.glassfish.jersey.server.ChunkedOutput;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Resources under the concurrency limit {@code conc} ({@code sluice.limit.conc.concurrency} in the scenarios'
 * settings, beside the inline rate): each stays in flight until the test {@link #finish()}es it, synchronously or
 * suspended, or while its entity is being written (a {@link StreamingOutput}, SSE, Jersey's {@link ChunkedOutput}).
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

    /** Runs {@code work} on a thread of its own, as a resource hands work to an executor. */
    private static void onWorker(Runnable work) {
        Thread worker = new Thread(work, "conc-worker");
        worker.setDaemon(true);
        worker.start();
    }

    /** An entity whose writing sends a first line, then stays in flight until the test finishes it. */
    private static StreamingOutput slowlyWritten() {
        return out -> {
            out.write("first\n".getBytes(StandardCharsets.UTF_8));
            out.flush();
            IN_FLIGHT.incrementAndGet();
            try {
                awaitFinish();
                out.write("done".getBytes(StandardCharsets.UTF_8));
            } finally {
                IN_FLIGHT.decrementAndGet();
            }
        };
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
        @Path("stream")
        public StreamingOutput stream() {
            return slowlyWritten();
        }

        /** Resumed at once, from another thread, with an entity that takes its time to be written. */
        @GET
        @Path("async-stream")
        public void asyncStream(@Suspended AsyncResponse response) {
            onWorker(() -> response.resume(slowlyWritten()));
        }

        @GET
        @Path("stage-stream")
        public CompletionStage<StreamingOutput> stageStream() {
            return CompletableFuture.supplyAsync(ConcurrencyResources::slowlyWritten);
        }

        @GET
        @Path("events")
        @Produces(MediaType.SERVER_SENT_EVENTS)
        public void events(@Context SseEventSink sink, @Context Sse sse) {
            onWorker(() -> {
                try (sink) {
                    sink.send(sse.newEvent("first")).toCompletableFuture().join();
                    IN_FLIGHT.incrementAndGet();
                    try {
                        awaitFinish();
                        sink.send(sse.newEvent("done")).toCompletableFuture().join();
                    } finally {
                        IN_FLIGHT.decrementAndGet();
                    }
                }
            });
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

    /** Jersey's own streaming entity: written chunk by chunk until it is closed. */
    @Path("chunked")
    @RateLimited(value = "conc", rate = "1000/1s")
    public static class Chunked {
        @GET
        public ChunkedOutput<String> chunks() {
            ChunkedOutput<String> output = new ChunkedOutput<>(String.class);
            onWorker(() -> {
                try (output) {
                    output.write("first\n");
                    IN_FLIGHT.incrementAndGet();
                    try {
                        awaitFinish();
                        output.write("done");
                    } finally {
                        IN_FLIGHT.decrementAndGet();
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            return output;
        }
    }
}
