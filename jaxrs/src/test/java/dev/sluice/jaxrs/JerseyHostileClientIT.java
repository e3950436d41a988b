package dev.sluice.jaxrs;

/** The hostile-client scenarios on Jersey's servlet on Undertow, behind the servlet filter. */
class JerseyHostileClientIT extends AbstractHostileClientIT {

    @Override
    JaxrsContainer container() {
        return UndertowServletContainer.jersey();
    }
}
