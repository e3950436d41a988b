package dev.sluice.jaxrs;

import jakarta.ws.rs.core.Application;

import java.net.URI;

/**
 * A JAX-RS runtime in a real HTTP server on a free loopback port, for the scenarios of
 * {@link AbstractRateLimitedResourceIT}. Every container authenticates HTTP BASIC credentials of
 * {@link #USERS} so that {@code principal} keys see a real user.
 */
interface JaxrsContainer {

    /** User names accepted by every container, all with password {@link #PASSWORD}. */
    java.util.Set<String> USERS = java.util.Set.of("alice", "bob");
    String PASSWORD = "secret";

    /** A deployed application; closing it undeploys the application and stops the server. */
    interface Deployment extends AutoCloseable {
        /** The application's root, ending with {@code /}. */
        URI base();

        @Override
        void close();
    }

    /**
     * Deploys {@code application} and starts the server.
     *
     * @throws Exception whatever the runtime throws when the application cannot be deployed
     */
    Deployment deploy(Application application) throws Exception;

    /** Whether the runtime sits in a servlet container (servlet request attributes, peer address). */
    boolean servlet();
}
