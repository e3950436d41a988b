package dev.sluice.sample;

import jakarta.enterprise.context.RequestScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * The {@link BoxOffice} over HTTP, below {@code /api/box-office/{counter}}: {@code PUT} opens the counter;
 * {@code POST sales} sells a ticket (201; with {@code ?rollback=true} the sale is rolled back, 200);
 * {@code POST sales/at-once} sells only if nobody holds the counter's lock ({@link Cashier}; 201, or Sluice's
 * 503 when it is taken); {@code POST receipts} prints a receipt (201); {@code GET} reports.
 *
 * <p>Sluice's exceptions are not caught here: thrown from the session beans, they reach this resource as
 * themselves and Sluice's JAX-RS exception mapper answers them.
 */
@Path("box-office/{counter}")
@RequestScoped
public class BoxOfficeResource {

    // Looked up when called: on a server without an EJB container (WildFly's standalone-microprofile.xml,
    // where the sample's other resources still run) the session beans are no beans at all.
    @Inject
    Instance<BoxOffice> boxOffice;

    @Inject
    Instance<Cashier> cashier;

    @PUT
    public Response open(@PathParam("counter") String counter) {
        boxOffice.get().open(counter);
        return Response.noContent().build();
    }

    @POST
    @Path("sales")
    @Produces(MediaType.TEXT_PLAIN)
    public Response sell(@PathParam("counter") String counter, @QueryParam("rollback") boolean rollBack) {
        boxOffice.get().sell(counter, rollBack);
        return rollBack ? Response.ok("rolled back\n").build()
                : Response.status(Response.Status.CREATED).entity("sold\n").build();
    }

    @POST
    @Path("sales/at-once")
    @Produces(MediaType.TEXT_PLAIN)
    public Response sellAtOnce(@PathParam("counter") String counter) {
        cashier.get().sellAtOnce(counter);
        return Response.status(Response.Status.CREATED).entity("sold\n").build();
    }

    @POST
    @Path("receipts")
    @Produces(MediaType.TEXT_PLAIN)
    public Response printReceipt(@PathParam("counter") String counter) {
        boxOffice.get().printReceipt(counter);
        return Response.status(Response.Status.CREATED).entity("printed\n").build();
    }

    @GET
    @Produces(MediaType.TEXT_PLAIN)
    public String report(@PathParam("counter") String counter) {
        return boxOffice.get().report(counter);
    }
}
