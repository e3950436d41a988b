package dev.sluice;

import java.util.Optional;

/**
 * A read-only view of the HTTP request being rate limited, the same for the servlet filter and the
 * JAX-RS filter. Given to {@link KeyResolver}s.
 */
public interface RequestView {

    /** HTTP method, upper case. */
    String method();

    /** Path within the application (servlet path + path info, or the JAX-RS request path), starting with {@code /}. */
    String path();

    /** First value of a request header. */
    Optional<String> header(String name);

    /** First value of a query parameter (decoded). */
    Optional<String> queryParameter(String name);

    /** A JAX-RS path parameter; always empty in the servlet filter. */
    Optional<String> pathParameter(String name);

    /** Name of the authenticated principal, empty for anonymous requests. */
    Optional<String> principal();

    /**
     * Client address after the {@code sluice.trusted-proxies} and {@code sluice.forwarding-header} rules, in
     * canonical form ({@code 192.0.2.7}, {@code 2001:db8::7}). An IPv6 client is given as its network of
     * {@code sluice.ipv6-prefix} bits ({@code 2001:db8:1:2::/64} by default), since one subscriber holds a
     * whole /64; with {@code sluice.ipv6-prefix=128}, as its address.
     */
    String clientAddress();

    /**
     * The container's own request object: {@code jakarta.servlet.http.HttpServletRequest} in the servlet
     * filter, {@code jakarta.ws.rs.container.ContainerRequestContext} in JAX-RS.
     *
     * @throws IllegalArgumentException when the request is not of that type
     */
    <T> T unwrap(Class<T> type);
}
