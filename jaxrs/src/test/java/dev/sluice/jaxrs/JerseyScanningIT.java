package dev.sluice.jaxrs;

import dev.sluice.test.RedisServer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;

import static dev.sluice.test.RateLimitAssertions.assertAllowed;
import static dev.sluice.test.RateLimitAssertions.assertTooManyRequests;

/**
 * An application that does not list its classes: Jersey scans for them and finds {@link RateLimitFeature}
 * by its {@code @Provider} annotation, as Payara scans {@code WEB-INF/lib}. (RESTEasy's scanning is done by
 * WildFly's deployer, which the EE integration tests cover.)
 */
class JerseyScanningIT {

    @RegisterExtension
    static final RedisServer REDIS = RedisServer.standalone();

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private JaxrsContainer.Deployment deployment;

    @AfterEach
    void undeploy() {
        if (deployment != null) {
            deployment.close();
        }
    }

    @Test
    void scanningFindsTheFeature() throws Exception {
        deployment = GrizzlyHttpContainer.scanning().deploy(new TestApplication()
                .properties(Map.of("sluice.redis.uri", REDIS.uri(),
                        // every scanned resource is deployed, this one's policy too
                        "sluice.limit.shared.rate", "3/1h")));

        assertAllowed(get("class-limited/stricter"), "per-method", 2, 3600);
        assertAllowed(get("class-limited/stricter"), "per-method", 2, 3600);
        assertTooManyRequests(get("class-limited/stricter"), "per-method", 2, 3600);
    }

    private HttpResponse<String> get(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(deployment.base() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
