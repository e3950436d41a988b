package dev.sluice.filter;

import dev.sluice.RequestView;
import dev.sluice.internal.http.ClientAddress;
import dev.sluice.internal.http.RateLimitGate;
import jakarta.servlet.http.HttpServletRequest;

import java.security.Principal;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Optional;

/**
 * {@link RequestView} over a servlet request, for one request on one thread. The client address is worked
 * out on first use only, since most keys do not need it. Not thread-safe (neither is the request).
 */
final class ServletRequestView implements RequestView {

    /** Header lines read of the forwarding header; a proxy chain never needs more. */
    private static final int MAX_HEADER_LINES = 64;

    private final HttpServletRequest request;
    private final String path;
    private final ClientAddress clientAddresses;
    private String clientAddress;
    private String clientIp;

    ServletRequestView(HttpServletRequest request, String path, ClientAddress clientAddresses) {
        this.request = request;
        this.path = path;
        this.clientAddresses = clientAddresses;
    }

    /**
     * Servlet path plus path info: decoded, normalised, without path parameters ({@code ;jsessionid=}),
     * so {@code /app/./login;x=1} is {@code /login} here, whatever the client sent.
     */
    static String pathWithinApplication(HttpServletRequest request) {
        String servletPath = request.getServletPath();
        String pathInfo = request.getPathInfo();
        String path = (servletPath == null ? "" : servletPath) + (pathInfo == null ? "" : pathInfo);
        return path.isEmpty() ? "/" : path;
    }

    /** Upper case whatever the client sent, as the interface promises ({@code post} is {@code POST}). */
    @Override
    public String method() {
        return RateLimitGate.requestMethod(request.getMethod());
    }

    @Override
    public String path() {
        return path;
    }

    @Override
    public Optional<String> header(String name) {
        return Optional.ofNullable(request.getHeader(name));
    }

    @Override
    public Optional<String> queryParameter(String name) {
        return QueryStrings.first(request.getQueryString(), name);
    }

    @Override
    public Optional<String> pathParameter(String name) {
        return Optional.empty();
    }

    @Override
    public Optional<String> principal() {
        Principal principal = request.getUserPrincipal();
        return principal == null ? Optional.empty() : Optional.ofNullable(principal.getName());
    }

    @Override
    public String clientAddress() {
        if (clientAddress == null) {
            // only the configured header: the other one may be the client's own, passed through by the proxy
            clientAddress = clientAddresses.resolve(request.getRemoteAddr(), this::forwardingHeaderLines);
        }
        return clientAddress;
    }

    @Override
    public String clientIp() {
        if (clientIp == null) {
            clientIp = clientAddresses.resolveAddress(request.getRemoteAddr(), this::forwardingHeaderLines);
        }
        return clientIp;
    }

    /**
     * The container's answer at the time the filter runs: a request to a URL under a security constraint was
     * authenticated before the filter chain; any other request only when the container or an earlier filter
     * authenticated it (otherwise it is anonymous and in no role).
     */
    @Override
    public boolean isUserInRole(String role) {
        return request.isUserInRole(role);
    }

    /** The configured forwarding header's last lines, read only when the peer is a trusted proxy. */
    private List<String> forwardingHeaderLines() {
        return lastLines(request.getHeaders(clientAddresses.headerName()));
    }

    private static List<String> lastLines(Enumeration<String> values) {
        List<String> lines = new ArrayList<>(2);
        while (values != null && values.hasMoreElements()) {
            if (lines.size() == MAX_HEADER_LINES) {
                lines.remove(0);
            }
            lines.add(values.nextElement());
        }
        return lines;
    }

    @Override
    public <T> T unwrap(Class<T> type) {
        if (type.isInstance(request)) {
            return type.cast(request);
        }
        throw new IllegalArgumentException("the servlet filter's request is a " + request.getClass().getName()
                + ", not a " + type.getName());
    }
}
