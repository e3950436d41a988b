package dev.sluice.jaxrs;

import org.junit.jupiter.api.Test;

/** The scenarios on Jersey on Grizzly's plain HTTP server, without any servlet container. */
class JerseyHttpRateLimitIT extends AbstractRateLimitedResourceIT {

    @Override
    JaxrsContainer container() {
        return GrizzlyHttpContainer.listing();
    }

    @Test
    void aChunkedOutputHoldsItsPermitUntilItIsClosed() throws Exception {
        ConcurrencyResources.reset();
        deploy(new TestApplication(ConcurrencyResources.Chunked.class, ConcurrencyResources.Slow.class,
                RateLimitFeature.class));
        assertPermitHeldWhileWriting("chunked");
    }
}
