package dev.sluice.jaxrs;

import java.util.Map;

/** The scenarios on RESTEasy's servlet dispatcher on Undertow, as RESTEasy runs in WildFly. */
class ResteasyServletRateLimitIT extends AbstractRateLimitedResourceIT {

    @Override
    JaxrsContainer container() {
        return UndertowServletContainer.resteasy();
    }

    @Override
    Map<String, String> storeSettings() {
        return Map.of();
    }
}
