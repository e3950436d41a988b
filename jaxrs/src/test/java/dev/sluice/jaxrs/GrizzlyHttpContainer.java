package dev.sluice.jaxrs;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.Application;
import jakarta.ws.rs.core.SecurityContext;

import org.glassfish.grizzly.http.server.HttpServer;
import org.glassfish.jersey.grizzly2.httpserver.GrizzlyHttpServerFactory;
import org.glassfish.jersey.server.ResourceConfig;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.Base64;

/**
 * Jersey on Grizzly's plain HTTP server: a JAX-RS runtime without a servlet container, where no servlet
 * request exists. There is no container authentication here, so a pre-matching JAX-RS filter at
 * {@code Priorities.AUTHENTICATION} checks HTTP BASIC credentials and sets the {@link SecurityContext}, as
 * JAX-RS authentication filters (MicroProfile JWT, for one) do.
 */
final class GrizzlyHttpContainer implements JaxrsContainer {

    private final boolean scanning;

    private GrizzlyHttpContainer(boolean scanning) {
        this.scanning = scanning;
    }

    /** Deploys the application's listed classes. */
    static GrizzlyHttpContainer listing() {
        return new GrizzlyHttpContainer(false);
    }

    /**
     * Ignores the application's classes and lets Jersey scan this package (not its sub-packages) instead,
     * where it finds the test resources and, in the main classes, {@link RateLimitFeature} by its
     * {@code @Provider}.
     */
    static GrizzlyHttpContainer scanning() {
        return new GrizzlyHttpContainer(true);
    }

    @Override
    public Deployment deploy(Application application) {
        ResourceConfig config = scanning
                ? new ResourceConfig().packages(false, RateLimitFeature.class.getPackageName())
                        .setProperties(application.getProperties())
                : ResourceConfig.forApplication(application);
        config.register(BasicAuthentication.class);
        HttpServer server = GrizzlyHttpServerFactory.createHttpServer(URI.create("http://127.0.0.1:0/"), config);
        URI base = URI.create("http://127.0.0.1:" + server.getListener("grizzly").getPort() + "/");
        return new Deployment() {
            @Override
            public URI base() {
                return base;
            }

            @Override
            public void close() {
                server.shutdownNow();
            }
        };
    }

    @Override
    public boolean servlet() {
        return false;
    }

    @Override
    public String toString() {
        return "Jersey on Grizzly HTTP (no servlet)" + (scanning ? ", scanning" : "");
    }

    /** Sets the user of valid BASIC credentials as the request's principal. */
    @PreMatching
    @Priority(Priorities.AUTHENTICATION)
    public static final class BasicAuthentication implements ContainerRequestFilter {
        @Override
        public void filter(ContainerRequestContext request) {
            String header = request.getHeaderString("Authorization");
            if (header == null || !header.startsWith("Basic ")) {
                return;
            }
            String[] credentials = new String(Base64.getDecoder().decode(header.substring(6)), StandardCharsets.UTF_8)
                    .split(":", 2);
            if (credentials.length != 2 || !USERS.contains(credentials[0]) || !PASSWORD.equals(credentials[1])) {
                return;
            }
            String user = credentials[0];
            SecurityContext original = request.getSecurityContext();
            request.setSecurityContext(new SecurityContext() {
                @Override
                public Principal getUserPrincipal() {
                    return () -> user;
                }

                @Override
                public boolean isUserInRole(String role) {
                    return "user".equals(role);
                }

                @Override
                public boolean isSecure() {
                    return original.isSecure();
                }

                @Override
                public String getAuthenticationScheme() {
                    return BASIC_AUTH;
                }
            });
        }
    }
}
