package dev.sluice.jaxrs;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;

/**
 * Two login resources that answer {@code served:<name>}, so a test can tell which requests reached them. One is
 * protected by the servlet filter alone ({@code sluice.limit.login.paths=/login}), the other by
 * {@code @RateLimited} alone (its inline rate is what package scanning sees); the tests configure both policies.
 */
final class LoginResources {

    static final String SERVED = "served:";

    private LoginResources() {
    }

    /** Protected by the servlet filter's {@code paths}; no annotation. */
    @Path("login")
    public static class FilterProtected {
        @GET
        public String get() {
            return SERVED + "login";
        }

        @POST
        public String post() {
            return SERVED + "login";
        }
    }

    /** Protected by JAX-RS alone. */
    @Path("rs-login")
    @RateLimited(value = "rs-login", rate = "3/1h")
    public static class AnnotationProtected {
        @GET
        public String get() {
            return SERVED + "rs-login";
        }

        @POST
        public String post() {
            return SERVED + "rs-login";
        }
    }
}
