package dev.sluice.jaxrs;

import jakarta.annotation.Priority;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.SecurityContext;

import java.security.Principal;
import java.util.Set;

/** The resources and application filters of {@link AbstractExemptionIT}. */
final class ExemptResources {

    private ExemptResources() {
    }

    /** Exempts {@code role:ops}, {@code principal:monitor} and 203.0.113.0/24 (set in the configuration). */
    @Path("exempt-reports")
    public static class Reports {
        @GET
        @RateLimited(value = "exempt-reports", rate = "2/1h")
        public String reports(@Context SecurityContext security) {
            Principal user = security.getUserPrincipal();
            return (user == null ? "anonymous" : user.getName()) + " ops=" + security.isUserInRole("ops");
        }
    }

    /** Exempts {@code role:user}, the role every container gives its BASIC users. */
    @Path("exempt-members")
    public static class Members {
        @GET
        @RateLimited(value = "exempt-members", rate = "2/1h")
        public String members() {
            return "members";
        }
    }

    /**
     * An application's authentication filter that runs before Sluice's (pre-matching, as JWT and most
     * authentication filters are): the user of {@code X-Test-User} with the roles of {@code X-Test-Roles}.
     */
    @PreMatching
    @Priority(Priorities.AUTHENTICATION)
    public static final class EarlyAuthentication implements ContainerRequestFilter {
        @Override
        public void filter(ContainerRequestContext request) {
            authenticate(request, request.getHeaderString("X-Test-User"), request.getHeaderString("X-Test-Roles"));
        }
    }

    /**
     * The same from a filter of the application that runs after Sluice's ({@code Priorities.USER} is above
     * {@link RateLimitFeature#PRIORITY}): too late for an exemption.
     */
    @Priority(Priorities.USER)
    public static final class LateAuthentication implements ContainerRequestFilter {
        @Override
        public void filter(ContainerRequestContext request) {
            authenticate(request, request.getHeaderString("X-Late-User"), request.getHeaderString("X-Late-Roles"));
        }
    }

    private static void authenticate(ContainerRequestContext request, String user, String roles) {
        if (user == null) {
            return;
        }
        Set<String> granted = roles == null ? Set.of() : Set.of(roles.split(","));
        SecurityContext original = request.getSecurityContext();
        request.setSecurityContext(new SecurityContext() {
            @Override
            public Principal getUserPrincipal() {
                return () -> user;
            }

            @Override
            public boolean isUserInRole(String role) {
                return granted.contains(role);
            }

            @Override
            public boolean isSecure() {
                return original.isSecure();
            }

            @Override
            public String getAuthenticationScheme() {
                return "X-Test";
            }
        });
    }
}
