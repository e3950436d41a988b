package dev.sluice.jaxrs;

import org.junit.jupiter.api.Test;

/** The scenarios on RESTEasy's servlet dispatcher on Undertow, as RESTEasy runs in WildFly. */
class ResteasyServletRateLimitIT extends AbstractServletRateLimitedResourceIT {

    @Override
    JaxrsContainer container() {
        return UndertowServletContainer.resteasy();
    }

    /** Without the servlet filter, whose end of the asynchronous cycle would otherwise return the permit. */
    @Test
    void anEventStreamHoldsItsPermitUntilItsSinkClosesWithoutTheServletFilter() throws Exception {
        ConcurrencyResources.reset();
        deploy(UndertowServletContainer.resteasy().withoutServletFilter(),
                new TestApplication(ConcurrencyResources.Slow.class, RateLimitFeature.class));
        assertPermitHeldWhileWriting("conc/events");
    }
}
