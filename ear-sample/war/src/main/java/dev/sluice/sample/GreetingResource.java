package dev.sluice.sample;

import dev.sluice.jaxrs.RateLimited;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/** {@code GET /api/hello}: the policy {@code api} (5 per minute per client address) in its simplest use. */
@Path("hello")
public class GreetingResource {

    @GET
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimited("api")
    public String hello() {
        return "hello from Sluice\n";
    }
}
