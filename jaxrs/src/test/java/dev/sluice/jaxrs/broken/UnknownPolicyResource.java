package dev.sluice.jaxrs.broken;

import dev.sluice.jaxrs.RateLimited;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

/** Names a policy that no configuration defines, without an inline rate: deployment must fail. */
@Path("broken")
public class UnknownPolicyResource {

    @GET
    @RateLimited("nope")
    public String nope() {
        return "never deployed";
    }
}
