package dev.sluice.jaxrs;

/** The exemption scenarios on Jersey on Grizzly's plain HTTP server, without any servlet container. */
class JerseyHttpExemptionIT extends AbstractExemptionIT {

    @Override
    JaxrsContainer container() {
        return GrizzlyHttpContainer.listing();
    }
}
