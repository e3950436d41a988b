package dev.sluice.servers.wildflypreview;

import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import dev.sluice.servers.Http;
import dev.sluice.servers.SampleApp;
import dev.sluice.servers.SampleScenarios;
import dev.sluice.servers.ServerProperties;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.dmr.ModelNode;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's plain WAR (jakarta) on WildFly Preview 39 ({@code standalone-microprofile.xml}: Jakarta EE 11 with
 * MicroProfile Config, Health and Telemetry), managed by Arquillian: the filter from its web fragment,
 * {@code @RateLimited} JAX-RS resources, {@code @Locked} and {@code @Bounded} CDI beans, configuration through
 * the server's MicroProfile Config and the readiness check, on one server start.
 */
class SampleOnWildFlyPreview39IT extends SampleScenarios {

    @RegisterExtension
    @Order(3)
    static final ArquillianExtension arquillian = new ArquillianExtension();

    @Deployment(testable = false)
    static WebArchive plainWar() {
        Path war = Path.of(System.getProperty("sluice.it.war", "target/sample-plain.war"));
        if (!Files.isRegularFile(war)) {
            throw new IllegalStateException(war + " is missing: run the tests through Maven (mvn verify)");
        }
        return ShrinkWrap.createFromZipFile(WebArchive.class, war.toFile());
    }

    @Override
    protected List<SampleApp> apps() {
        URI root = URI.create("http://127.0.0.1:" + port(ServerProperties.WILDFLY_HTTP_PORT) + "/");
        return List.of(new SampleApp("plain WAR", root.resolve("sample-plain/"), "sample-plain"));
    }

    @Test
    @Order(50)
    void readinessIncludesSluiceRedisUp() {
        HttpResponse<String> ready = Http.get(URI.create("http://127.0.0.1:"
                + port(ServerProperties.WILDFLY_MANAGEMENT_PORT) + "/health/ready"));
        assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
        List<ModelNode> checks = ModelNode.fromJSONString(ready.body()).get("checks").asList().stream()
                .filter(check -> "sluice-redis".equals(check.get("name").asString()))
                .toList();
        assertThat(checks).as(ready.body()).singleElement()
                .satisfies(check -> assertThat(check.get("status").asString()).isEqualTo("UP"));
    }

    private static int port(int base) {
        return base + ServerProperties.wildflyPortOffset();
    }
}
