package dev.sluice.sample;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.util.regex.Pattern;

/**
 * {@code GET /api/counters/<policy>}: a rate-limit policy's counters as Sluice publishes them in JMX
 * ({@code dev.sluice:type=RateLimit,app=<app>,name=<policy>}), summed over the applications of this server
 * that have the policy. Shows how to read them from inside an application, for instance the would-be
 * refusals of a policy in shadow mode before enforcing it.
 */
@Path("counters/{policy}")
public class CountersResource {

    private static final Pattern POLICY = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    private static final String[] ATTRIBUTES = {"Allowed", "Denied", "WouldDeny", "ChargedAfterResponse", "Exempt"};

    @GET
    @Produces(MediaType.TEXT_PLAIN)
    public Response counters(@PathParam("policy") String policy) throws JMException {
        if (!POLICY.matcher(policy).matches()) {
            return Response.status(Response.Status.BAD_REQUEST).entity("not a policy name\n").build();
        }
        MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
        long[] sums = new long[ATTRIBUTES.length];
        for (ObjectName name : jmx.queryNames(new ObjectName("dev.sluice:type=RateLimit,name=" + policy + ",*"), null)) {
            for (int i = 0; i < ATTRIBUTES.length; i++) {
                sums[i] += ((Number) jmx.getAttribute(name, ATTRIBUTES[i])).longValue();
            }
        }
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < ATTRIBUTES.length; i++) {
            text.append(ATTRIBUTES[i]).append('=').append(sums[i]).append('\n');
        }
        return Response.ok(text.toString()).build();
    }
}
