package dev.sluice;

import java.util.Optional;

/**
 * A read-only view of the HTTP request being rate limited, the same for the servlet filter and the
 * JAX-RS filter. Given to {@link KeyResolver}s.
 */
public interface RequestView {

    /** {@return HTTP method, upper case} */
    String method();

    /** {@return path within the application (servlet path + path info, or the JAX-RS request path), starting with {@code /}} */
    String path();

    /**
     * {@return first value of a request header}
     *
     * @param name the header name, case-insensitive
     */
    Optional<String> header(String name);

    /**
     * {@return first value of a query parameter (decoded)}
     *
     * @param name the parameter name
     */
    Optional<String> queryParameter(String name);

    /**
     * {@return a JAX-RS path parameter; always empty in the servlet filter}
     *
     * @param name the path parameter name
     */
    Optional<String> pathParameter(String name);

    /** {@return name of the authenticated principal, empty for anonymous requests} */
    Optional<String> principal();

    /**
     * Client address after the {@code sluice.trusted-proxies} and {@code sluice.forwarding-header} rules, in
     * canonical form ({@code 192.0.2.7}, {@code 2001:db8::7}). An IPv6 client is given as its network of
     * {@code sluice.ipv6-prefix} bits ({@code 2001:db8:1:2::/64} by default), since one subscriber holds a
     * whole /64; with {@code sluice.ipv6-prefix=128}, as its address.
     *
     * @return the client address or IPv6 network
     */
    String clientAddress();

    /**
     * The client's full address after the {@code sluice.trusted-proxies} and {@code sluice.forwarding-header}
     * rules, in canonical form ({@code 192.0.2.7}, {@code 2001:db8:1:2::7}): unlike {@link #clientAddress()},
     * an IPv6 client is never reduced to its network. This is what {@code sluice.limit.<policy>.exempt} CIDRs
     * are compared with, so exempting {@code 2001:db8:1:2::7/128} does not exempt {@code 2001:db8:1:2::8}.
     * Empty when the address is unknown: JAX-RS outside a servlet container, or a trusted proxy's forwarding
     * header that names no address for the client (never the proxy's own address, which an exemption could
     * match); the peer as the container gave it when that is not an IP literal.
     *
     * <p>The default returns {@link #clientAddress()} when that is a single address, and an empty string when
     * it is an IPv6 network, which no exemption matches. Sluice's own views override it.
     *
     * @return the client's address in canonical form, or an empty string
     */
    default String clientIp() {
        String address = clientAddress();
        return address.indexOf('/') < 0 ? address : "";
    }

    /**
     * Whether the authenticated user is in {@code role}, as the container knows it at the time Sluice runs:
     * {@code HttpServletRequest.isUserInRole} in the servlet filter, {@code SecurityContext.isUserInRole} in
     * JAX-RS. False for an anonymous request, and for a request whose authentication has not happened yet
     * (see the documentation of {@code exempt} for when containers authenticate).
     *
     * <p>The default returns false: a view without a notion of roles exempts nobody by role.
     *
     * @param role the role name, compared by the container
     * @return whether the user is in the role
     */
    default boolean isUserInRole(String role) {
        return false;
    }

    /**
     * The container's own request object: {@code jakarta.servlet.http.HttpServletRequest} in the servlet
     * filter, {@code jakarta.ws.rs.container.ContainerRequestContext} in JAX-RS.
     *
     * @param <T>  the request type
     * @param type the request type
     * @return the request object
     * @throws IllegalArgumentException when the request is not of that type
     */
    <T> T unwrap(Class<T> type);
}
