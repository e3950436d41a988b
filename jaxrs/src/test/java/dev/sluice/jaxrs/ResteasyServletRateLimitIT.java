package dev.sluice.jaxrs;

/** The scenarios on RESTEasy's servlet dispatcher on Undertow, as RESTEasy runs in WildFly. */
class ResteasyServletRateLimitIT extends AbstractServletRateLimitedResourceIT {

    @Override
    JaxrsContainer container() {
        return UndertowServletContainer.resteasy();
    }
}
