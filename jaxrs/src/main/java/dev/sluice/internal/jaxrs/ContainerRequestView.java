package dev.sluice.internal.jaxrs;

import dev.sluice.RequestView;
import dev.sluice.internal.http.ClientAddress;
import dev.sluice.internal.http.RateLimitGate;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.SecurityContext;

import java.security.Principal;
import java.util.List;
import java.util.Optional;

/**
 * {@link RequestView} over a JAX-RS {@link ContainerRequestContext}, for key derivation and
 * {@link dev.sluice.KeyResolver}s. One per request, used on the request's thread; not thread-safe.
 *
 * <p>JAX-RS has no portable way to learn the peer's address, so it comes from a request property that
 * {@link ServletPeerFilter} sets in servlet containers; without it the client address is empty.
 */
final class ContainerRequestView implements RequestView {

    /** Request property holding the direct peer's address ({@code ServletRequest.getRemoteAddr()}). */
    static final String PEER_PROPERTY = "dev.sluice.jaxrs.peer";

    private final ContainerRequestContext request;
    private final ClientAddress clientAddress;
    private String client;
    private String clientIp;
    private boolean clientAddressUsed;

    ContainerRequestView(ContainerRequestContext request, ClientAddress clientAddress) {
        this.request = request;
        this.clientAddress = clientAddress;
    }

    /** Upper case whatever the client sent, as the interface promises (RESTEasy runs {@code @POST} for {@code post}). */
    @Override
    public String method() {
        return RateLimitGate.requestMethod(request.getMethod());
    }

    @Override
    public String path() {
        String path = request.getUriInfo().getPath();
        return path.startsWith("/") ? path : "/" + path;
    }

    @Override
    public Optional<String> header(String name) {
        return Optional.ofNullable(request.getHeaders().getFirst(name));
    }

    @Override
    public Optional<String> queryParameter(String name) {
        return Optional.ofNullable(request.getUriInfo().getQueryParameters().getFirst(name));
    }

    @Override
    public Optional<String> pathParameter(String name) {
        return Optional.ofNullable(request.getUriInfo().getPathParameters().getFirst(name));
    }

    @Override
    public Optional<String> principal() {
        SecurityContext security = request.getSecurityContext();
        Principal principal = security == null ? null : security.getUserPrincipal();
        return principal == null ? Optional.empty() : Optional.ofNullable(principal.getName());
    }

    @Override
    public String clientAddress() {
        clientAddressUsed = true;
        if (client == null) {
            Object peer = request.getProperty(PEER_PROPERTY);
            // only the configured header: the other one may be the client's own, passed through by the proxy
            client = clientAddress.resolve(peer instanceof String s ? s : null, this::forwardingHeaderLines);
        }
        return client;
    }

    @Override
    public String clientIp() {
        clientAddressUsed = true;
        if (clientIp == null) {
            Object peer = request.getProperty(PEER_PROPERTY);
            clientIp = clientAddress.resolveAddress(peer instanceof String s ? s : null, this::forwardingHeaderLines);
        }
        return clientIp;
    }

    /**
     * The request's {@link SecurityContext} as it is when Sluice's filter runs: after {@code @PreMatching}
     * filters and filters of a lower priority than Sluice's, which is where authentication filters set it;
     * on a servlet container, without such a filter, the servlet request's roles.
     */
    @Override
    public boolean isUserInRole(String role) {
        SecurityContext security = request.getSecurityContext();
        return security != null && security.isUserInRole(role);
    }

    /** Whether a key or an exemption asked for the client's address. */
    boolean clientAddressUsed() {
        return clientAddressUsed;
    }

    /** Whether the runtime told us the peer's address (servlet containers do). */
    boolean peerKnown() {
        return request.getProperty(PEER_PROPERTY) instanceof String;
    }

    /** The configured forwarding header's lines, read only when the peer is a trusted proxy. */
    private List<String> forwardingHeaderLines() {
        List<String> values = request.getHeaders().get(clientAddress.headerName());
        return values == null ? List.of() : values;
    }

    @Override
    public <T> T unwrap(Class<T> type) {
        if (type.isInstance(request)) {
            return type.cast(request);
        }
        throw new IllegalArgumentException("the JAX-RS request is a ContainerRequestContext, not a " + type.getName());
    }
}
