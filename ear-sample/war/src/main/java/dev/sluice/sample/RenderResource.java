package dev.sluice.sample;

import dev.sluice.PermitNotAcquiredException;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * {@code POST /api/render?document=x} renders (at most 2 at once, the others wait);
 * {@code GET /api/render} reports how many ran at once.
 */
@Path("render")
@RequestScoped
public class RenderResource {

    @Inject
    Renderer renderer;

    @POST
    @Produces(MediaType.TEXT_PLAIN)
    public Response render(@QueryParam("document") @DefaultValue("report") String document)
            throws InterruptedException {
        try {
            return Response.ok(renderer.render(document)).build();
        } catch (PermitNotAcquiredException e) {
            return Response.status(Response.Status.SERVICE_UNAVAILABLE).header("Retry-After", "1")
                    .entity("too busy, try again\n").build();
        }
    }

    @GET
    @Produces(MediaType.TEXT_PLAIN)
    public String report() {
        return renderer.report();
    }
}
