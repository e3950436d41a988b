package dev.sluice.jaxrs;

import org.junit.jupiter.api.Test;

/** The scenarios on Jersey's servlet container on Undertow, as Jersey runs in Payara and GlassFish. */
class JerseyServletRateLimitIT extends AbstractServletRateLimitedResourceIT {

    @Override
    JaxrsContainer container() {
        return UndertowServletContainer.jersey();
    }

    @Test
    void aChunkedOutputHoldsItsPermitUntilItIsClosed() throws Exception {
        ConcurrencyResources.reset();
        deploy(new TestApplication(ConcurrencyResources.Chunked.class, ConcurrencyResources.Slow.class,
                RateLimitFeature.class));
        assertPermitHeldWhileWriting("chunked");
    }

    /** Without the servlet filter, whose end of the asynchronous cycle would otherwise return the permit. */
    @Test
    void anEventStreamHoldsItsPermitUntilItsSinkClosesWithoutTheServletFilter() throws Exception {
        ConcurrencyResources.reset();
        deploy(UndertowServletContainer.jersey().withoutServletFilter(),
                new TestApplication(ConcurrencyResources.Slow.class, RateLimitFeature.class));
        assertPermitHeldWhileWriting("conc/events");
    }
}
