package dev.sluice.jaxrs;

/** The exemption scenarios on RESTEasy's servlet dispatcher on Undertow, as in WildFly. */
class ResteasyServletExemptionIT extends AbstractExemptionIT {

    @Override
    JaxrsContainer container() {
        return UndertowServletContainer.resteasy();
    }
}
