package dev.sluice.sample;

import java.security.Principal;

import dev.sluice.jaxrs.RateLimited;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.SecurityContext;

/**
 * Policies with exemptions ({@code sluice.limit.<policy>.exempt}): clients they neither limit nor count.
 * {@code GET /api/exempt/local} exempts requests from the server's own machine (a monitoring probe on the
 * host); {@code GET /api/exempt/staff} exempts the user {@code bob}, known when the server authenticates
 * the credentials he sends (WildFly does so on any URL, as its {@code proactive-authentication} is on by
 * default).
 */
@Path("exempt")
public class ExemptResource {

    @GET
    @Path("local")
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimited("exempt-local")
    public String local() {
        return "local\n";
    }

    @GET
    @Path("staff")
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimited("exempt-staff")
    public String staff(@Context SecurityContext security) {
        Principal user = security.getUserPrincipal();
        return "staff " + (user == null ? "anonymous" : user.getName()) + "\n";
    }
}
