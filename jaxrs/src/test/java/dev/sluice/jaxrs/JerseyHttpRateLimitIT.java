package dev.sluice.jaxrs;

/** The scenarios on Jersey on Grizzly's plain HTTP server, without any servlet container. */
class JerseyHttpRateLimitIT extends AbstractRateLimitedResourceIT {

    @Override
    JaxrsContainer container() {
        return GrizzlyHttpContainer.listing();
    }
}
