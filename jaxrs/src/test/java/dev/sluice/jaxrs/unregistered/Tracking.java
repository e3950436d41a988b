package dev.sluice.jaxrs.unregistered;

import dev.sluice.jaxrs.RateLimited;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

/** A resource in a package of its own, so that {@code packages(...)} over it finds no Sluice provider. */
@Path("tracking")
public class Tracking {

    @GET
    @Path("{id}")
    @RateLimited(value = "tracking", rate = "100/1h")
    public String find(@PathParam("id") String id) {
        return "cargo " + id;
    }

    @GET
    public String list() {
        return "all cargo";
    }
}
