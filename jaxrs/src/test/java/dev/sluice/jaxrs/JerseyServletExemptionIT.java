package dev.sluice.jaxrs;

/** The exemption scenarios on Jersey's servlet container on Undertow. */
class JerseyServletExemptionIT extends AbstractExemptionIT {

    @Override
    JaxrsContainer container() {
        return UndertowServletContainer.jersey();
    }
}
