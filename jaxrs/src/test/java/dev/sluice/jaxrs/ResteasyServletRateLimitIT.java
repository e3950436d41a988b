package dev.sluice.jaxrs;

/** The scenarios on RESTEasy's servlet dispatcher on Undertow, as RESTEasy runs in WildFly. */
class ResteasyServletRateLimitIT extends AbstractRateLimitedResourceIT {

    @Override
    JaxrsContainer container() {
        return UndertowServletContainer.resteasy();
    }
}
