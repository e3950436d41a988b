package dev.sluice.sample;

import java.util.Map;

import dev.sluice.jaxrs.RateLimited;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.FormParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * {@code POST /api/sign-in} with the form fields {@code user} and {@code password}: an application's own
 * login check, {@code 200} for the right password and {@code 401} for a wrong one. The policy
 * {@code login-failures} ({@code count=401}, 3 a minute per client address) is charged only for the 401s, so
 * signing in successfully never uses it up; after three failures within a minute the next attempt from that
 * address is refused with 429, right password or not, until a token is back.
 *
 * <p>A resource rather than container FORM authentication: {@code j_security_check} is answered by the
 * container before any filter or resource runs, so nothing in the application sees its status.
 */
@Path("sign-in")
public class SignInResource {

    /** The sample's users; a real application asks its user store. */
    private static final Map<String, String> PASSWORDS = Map.of("alice", "alice-pw", "bob", "bob-pw");

    @POST
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimited("login-failures")
    public Response signIn(@FormParam("user") String user, @FormParam("password") String password) {
        if (user != null && password != null && password.equals(PASSWORDS.get(user))) {
            return Response.ok("welcome " + user + "\n").build();
        }
        return Response.status(Response.Status.UNAUTHORIZED).entity("wrong user name or password\n").build();
    }
}
