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
