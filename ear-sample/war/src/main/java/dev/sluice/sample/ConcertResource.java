package dev.sluice.sample;

import java.util.OptionalInt;

import dev.sluice.LockNotAcquiredException;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * {@code POST /api/concerts/{concert}/tickets} buys a seat (201, or 409 when sold out);
 * {@code GET /api/concerts/{concert}} reports sales and what the lock was seen doing.
 * A concert is created, with {@value Concert#SEATS} seats, the first time it is named.
 */
@Path("concerts/{concert}")
@RequestScoped
public class ConcertResource {

    @Inject
    TicketOffice office;

    @POST
    @Path("tickets")
    @Produces(MediaType.TEXT_PLAIN)
    public Response buy(@PathParam("concert") String concert) {
        try {
            OptionalInt seat = office.buy(concert);
            if (seat.isEmpty()) {
                return Response.status(Response.Status.CONFLICT).entity("sold out\n").build();
            }
            return Response.status(Response.Status.CREATED).entity("seat " + seat.getAsInt() + "\n").build();
        } catch (LockNotAcquiredException e) {
            return Response.status(Response.Status.SERVICE_UNAVAILABLE).header("Retry-After", "1")
                    .entity("too busy, try again\n").build();
        }
    }

    @GET
    @Produces(MediaType.TEXT_PLAIN)
    public String report(@PathParam("concert") String concert) {
        return office.report(concert);
    }
}
