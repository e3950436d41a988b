package dev.sluice.jaxrs;

/** The hostile-client scenarios on Resteasy's servlet on Undertow, behind the servlet filter. */
class ResteasyHostileClientIT extends AbstractHostileClientIT {

    @Override
    JaxrsContainer container() {
        return UndertowServletContainer.resteasy();
    }
}
