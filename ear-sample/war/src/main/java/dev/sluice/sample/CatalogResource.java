package dev.sluice.sample;

import dev.sluice.jaxrs.RateLimited;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * {@code GET /api/catalog}: a limit in force and a tighter one on trial. The policy {@code shadow-enforced}
 * (5 a minute per client address) decides; {@code shadow-trial} (2 a minute, {@code mode=shadow}) is decided
 * and charged in the same Redis call but never refuses a request and adds no headers, so its would-be refusals
 * can be watched before it is enforced.
 */
@Path("catalog")
public class CatalogResource {

    @GET
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimited("shadow-enforced")
    @RateLimited("shadow-trial")
    public String catalog() {
        return "catalog\n";
    }
}
