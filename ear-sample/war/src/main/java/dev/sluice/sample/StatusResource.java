package dev.sluice.sample;

import dev.sluice.jaxrs.RateLimited;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * {@code GET /api/status}: limited by the policy {@code status}. While Redis is unreachable it
 * answers anyway, without rate-limit headers ({@code sluice.on-redis-failure=allow}, the default).
 */
@Path("status")
public class StatusResource {

    @GET
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimited("status")
    public String status() {
        return "up\n";
    }
}
