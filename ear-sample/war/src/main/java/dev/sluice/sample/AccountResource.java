package dev.sluice.sample;

import dev.sluice.jaxrs.RateLimited;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.SecurityContext;

/**
 * {@code GET /api/me}: needs a logged-in user (HTTP Basic, see {@code web.xml}); the policy
 * {@code per-user} counts per principal, so each user has a bucket of their own whatever address
 * they come from.
 */
@Path("me")
public class AccountResource {

    @GET
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimited("per-user")
    public String me(@Context SecurityContext security) {
        return "hello " + security.getUserPrincipal().getName() + "\n";
    }
}
