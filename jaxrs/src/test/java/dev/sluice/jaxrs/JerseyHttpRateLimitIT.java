package dev.sluice.jaxrs;

import java.util.Map;

/** The scenarios on Jersey on Grizzly's plain HTTP server, without any servlet container. */
class JerseyHttpRateLimitIT extends AbstractRateLimitedResourceIT {

    @Override
    JaxrsContainer container() {
        return GrizzlyHttpContainer.listing();
    }

    @Override
    Map<String, String> storeSettings() {
        return Map.of();
    }
}
