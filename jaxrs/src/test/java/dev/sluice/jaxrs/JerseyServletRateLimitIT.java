package dev.sluice.jaxrs;

/** The scenarios on Jersey's servlet container on Undertow, as Jersey runs in Payara and GlassFish. */
class JerseyServletRateLimitIT extends AbstractServletRateLimitedResourceIT {

    @Override
    JaxrsContainer container() {
        return UndertowServletContainer.jersey();
    }
}
