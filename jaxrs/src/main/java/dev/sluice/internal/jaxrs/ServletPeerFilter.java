package dev.sluice.internal.jaxrs;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.Context;

/**
 * Copies the servlet peer address into a request property for {@link ContainerRequestView}, since JAX-RS
 * itself cannot tell who is connected.
 *
 * <p>This is the only class of the module that names a servlet type. {@code RateLimitFeature} registers it
 * (by class, so that the runtime injects it) only when the servlet API is visible, which keeps servlet
 * optional: in a JAX-RS runtime outside a servlet container the injected request is {@code null}
 * (Jersey) or a proxy that fails when used (RESTEasy), and the property is simply not set.
 *
 * <p>Public only so that JAX-RS runtimes can instantiate it; not part of the API. Thread-safe: the injected
 * request is the runtime's per-request proxy.
 */
public final class ServletPeerFilter implements ContainerRequestFilter {

    @Context
    private HttpServletRequest servletRequest;

    @Override
    public void filter(ContainerRequestContext request) {
        if (servletRequest == null) {
            return;
        }
        String peer;
        try {
            peer = servletRequest.getRemoteAddr();
        } catch (RuntimeException notInServletContainer) {
            return;
        }
        if (peer != null) {
            request.setProperty(ContainerRequestView.PEER_PROPERTY, peer);
        }
    }
}
