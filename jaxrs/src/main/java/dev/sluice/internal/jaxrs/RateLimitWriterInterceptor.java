package dev.sluice.internal.jaxrs;

import dev.sluice.internal.http.AfterResponse;
import dev.sluice.internal.http.Verdict;

import jakarta.ws.rs.ext.WriterInterceptor;
import jakarta.ws.rs.ext.WriterInterceptorContext;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Completes an admitted request's {@link AfterResponse} once its entity is completely written, which is when a
 * concurrency limit's permit may go back: a {@code StreamingOutput} writes its body inside
 * {@code MessageBodyWriter.writeTo}, around which this runs, and a resumed {@code AsyncResponse} or completed
 * {@code CompletionStage} writes its entity the same way, later than its response filter runs.
 *
 * <p>An entity whose writing goes on after {@code writeTo} returns (Jersey's {@code ChunkedOutput}, and its SSE
 * sink, which is one) is completed when the runtime closes the entity stream, at the end of the stream; on a
 * servlet container Sluice's servlet filter also completes it when the request's asynchronous cycle ends.
 * Chunks written later through this interceptor leave it alone.
 *
 * <p>Immutable and thread-safe; one instance per limited resource method.
 */
final class RateLimitWriterInterceptor implements WriterInterceptor {

    /** Request property: the status {@link RateLimitResponseFilter} saw, for the completion after writing. */
    static final String STATUS_PROPERTY = "dev.sluice.jaxrs.status";
    /** Request property set once a continuing entity was seen: later writes are its chunks. */
    private static final String STREAMING_PROPERTY = "dev.sluice.jaxrs.streaming";
    private static final String JERSEY_CHUNKED_OUTPUT = "org.glassfish.jersey.server.ChunkedOutput";

    @Override
    public void aroundWriteTo(WriterInterceptorContext context) throws IOException {
        if (!(context.getProperty(RateLimitRequestFilter.VERDICT_PROPERTY) instanceof Verdict verdict)
                || verdict.afterResponse().isEmpty() || context.getProperty(STREAMING_PROPERTY) != null) {
            context.proceed();
            return;
        }
        AfterResponse after = verdict.afterResponse();
        int status = context.getProperty(STATUS_PROPERTY) instanceof Integer s ? s : 200;
        if (continuing(context.getEntity())) {
            context.setProperty(STREAMING_PROPERTY, Boolean.TRUE);
            context.setOutputStream(new CompletingStream(context.getOutputStream(), after, status));
            context.proceed();
            return;
        }
        try {
            context.proceed();
        } finally {
            after.completed(status);
        }
    }

    /** Whether {@code entity} is written on after {@code writeTo} returns, until it is closed. */
    static boolean continuing(Object entity) {
        if (entity instanceof jakarta.ws.rs.sse.SseEventSink) {
            return true;
        }
        for (Class<?> c = entity == null ? null : entity.getClass(); c != null; c = c.getSuperclass()) {
            if (c.getName().equals(JERSEY_CHUNKED_OUTPUT)) {
                return true;
            }
        }
        return false;
    }

    /** The entity stream of a continuing entity: completes the request when the runtime closes it. */
    private static final class CompletingStream extends FilterOutputStream {
        private final AfterResponse after;
        private final int status;

        CompletingStream(OutputStream out, AfterResponse after, int status) {
            super(out);
            this.after = after;
            this.status = status;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
        }

        @Override
        public void close() throws IOException {
            try {
                super.close();
            } finally {
                after.completed(status);
            }
        }
    }
}
