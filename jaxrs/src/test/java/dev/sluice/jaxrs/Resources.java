package dev.sluice.jaxrs;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

/**
 * The resources the scenarios call. Limits are per hour, so that no token comes back during a test and
 * counts are exact on a clock we do not control (the Redis server's).
 */
final class Resources {

    private Resources() {
    }

    /** A class-level policy on every method, and a method that adds one of its own. */
    @Path("class-limited")
    @RateLimited(value = "per-class", rate = "4/1h")
    public static class ClassLimited {
        @GET
        @Path("plain")
        public String plain() {
            return "plain";
        }

        @GET
        @Path("stricter")
        @RateLimited(value = "per-method", rate = "2/1h")
        public String stricter() {
            return "stricter";
        }
    }

    /** Three policies on one method, decided together. */
    @Path("three")
    public static class ThreePolicies {
        @GET
        @RateLimited(value = "first", rate = "2/1h")
        @RateLimited(value = "second", rate = "3/1h")
        @RateLimited(value = "third", rate = "5/1h")
        public String three() {
            return "three";
        }
    }

    /** A per-user policy: the principal established by the container's authentication. */
    @Path("me")
    public static class PerUser {
        @GET
        @RateLimited(value = "per-user", rate = "2/1h", key = "principal")
        public String me() {
            return "me";
        }
    }

    /** A per-item policy keyed by a path parameter. */
    @Path("items/{id}")
    public static class PerItem {
        @GET
        @RateLimited(value = "per-item", rate = "2/1h", key = "path-param:id")
        public String item(@PathParam("id") String id) {
            return id;
        }
    }

    /** Inline defaults that the configuration overrides key by key. */
    @Path("tuned")
    public static class Tuned {
        @GET
        @RateLimited(value = "tuned", rate = "100/1h", key = "global")
        public String tuned() {
            return "tuned";
        }
    }

    /**
     * A policy that the configuration also hands to the servlet filter for {@code /shared/filtered}
     * ({@code sluice.limit.shared.paths}); {@code /shared/direct} is left to JAX-RS alone.
     */
    @Path("shared")
    @RateLimited("shared")
    public static class Shared {
        @GET
        @Path("filtered")
        public String filtered() {
            return "filtered";
        }

        @GET
        @Path("direct")
        public String direct() {
            return "direct";
        }
    }

    /** An inline rate whose key only the configuration sets. */
    @Path("keyed")
    public static class Keyed {
        @GET
        @RateLimited(value = "keyed", rate = "2/1h")
        public String keyed() {
            return "keyed";
        }
    }

    /** Resource methods that let Sluice's exceptions escape, as guarded code does. */
    @Path("throws")
    public static class Throwing {
        @GET
        @Path("lock")
        public String lock() {
            throw new dev.sluice.LockNotAcquiredException("order:secret-42", java.time.Duration.ofMillis(5), null);
        }

        @GET
        @Path("permit")
        public String permit() {
            throw new dev.sluice.PermitNotAcquiredException("pdf", java.time.Duration.ofMillis(5),
                    dev.sluice.StoreUnavailableException.skipped(2_500));
        }

        @GET
        @Path("rate")
        public String rate() {
            throw new dev.sluice.RateLimitExceededException(
                    dev.sluice.RateLimitDecision.of("export", false, 0, 5, 60, 12_000, 60_000));
        }

        @GET
        @Path("lost")
        public String lost() {
            throw new dev.sluice.LockLostException("order:secret-42", "Lock 'order:secret-42' (fencing token 7) lost");
        }
    }

    /** An application's own mapper for one of Sluice's exceptions: it must win over Sluice's. */
    @jakarta.ws.rs.ext.Provider
    public static class OwnLockMapper implements jakarta.ws.rs.ext.ExceptionMapper<dev.sluice.LockNotAcquiredException> {
        @Override
        public jakarta.ws.rs.core.Response toResponse(dev.sluice.LockNotAcquiredException e) {
            return jakarta.ws.rs.core.Response.status(409).entity("busy, says the application").build();
        }
    }

    /** Not limited at all. */
    @Path("free")
    public static class Free {
        @GET
        public String free() {
            return "free";
        }

        @POST
        public String post() {
            return "posted";
        }
    }

    /**
     * A login form: 401 for a wrong password, limited by a policy the scenario configures to count only 401s
     * ({@code sluice.limit.login-form.count=401}); {@code fail} throws an exception no mapper handles.
     */
    @Path("login-form")
    public static class LoginForm {
        @GET
        @RateLimited(value = "login-form", rate = "3/1h")
        public jakarta.ws.rs.core.Response login(@jakarta.ws.rs.QueryParam("password") String password) {
            return "right".equals(password) ? jakarta.ws.rs.core.Response.ok("welcome").build()
                    : jakarta.ws.rs.core.Response.status(401).entity("wrong password").build();
        }

        @GET
        @Path("unauthorized")
        @RateLimited(value = "login-form", rate = "3/1h")
        public String unauthorized() {
            throw new jakarta.ws.rs.NotAuthorizedException("Basic realm=\"test\"");
        }

        @GET
        @Path("broken")
        @RateLimited(value = "login-form", rate = "3/1h")
        public String broken() {
            throw new IllegalStateException("no mapper handles this");
        }
    }

    /** Limited by a policy the scenario shadows ({@code sluice.limit.trial.mode=shadow}). */
    @Path("trial")
    public static class Trial {
        @GET
        @RateLimited(value = "trial", rate = "1/1h")
        public String trial() {
            return "trial";
        }
    }
}
