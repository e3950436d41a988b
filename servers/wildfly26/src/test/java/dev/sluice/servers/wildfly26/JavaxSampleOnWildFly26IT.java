package dev.sluice.servers.wildfly26;

import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import dev.sluice.servers.Http;
import dev.sluice.servers.SampleApp;
import dev.sluice.servers.SessionBeanScenarios;
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
 * The javax sample WAR on WildFly 26.1 ({@code standalone.xml} with MicroProfile Health and Metrics added, see
 * {@code src/test/wildfly-cli}: Java EE 8, MicroProfile Config 2.0, Health 3.1, Metrics 3.0), managed by
 * Arquillian: the filter from its web fragment, {@code @RateLimited} JAX-RS resources, {@code @Locked} and
 * {@code @Bounded} CDI beans and {@code @Stateless} session beans, configuration through the server's
 * MicroProfile Config, the readiness check and the metrics, on one server start.
 */
class JavaxSampleOnWildFly26IT extends SessionBeanScenarios {

    @RegisterExtension
    @Order(3)
    static final ArquillianExtension arquillian = new ArquillianExtension();

    @Deployment(testable = false)
    static WebArchive javaxWar() {
        Path war = Path.of(System.getProperty("sluice.it.war", "target/sample-javax.war"));
        if (!Files.isRegularFile(war)) {
            throw new IllegalStateException(war + " is missing: run the tests through Maven (mvn verify)");
        }
        return ShrinkWrap.createFromZipFile(WebArchive.class, war.toFile());
    }

    @Override
    protected List<SampleApp> apps() {
        URI root = URI.create("http://127.0.0.1:" + port(ServerProperties.WILDFLY_HTTP_PORT) + "/");
        // The sample's MicroProfile Config (sluice.key-prefix) is the plain WAR's, carried over unchanged.
        return List.of(new SampleApp("javax WAR", root.resolve("sample-javax/"), "sample-plain"));
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

    @Test
    @Order(51)
    void metricsReachTheServersMicroProfileMetrics() {
        HttpResponse<String> metrics = Http.get(URI.create("http://127.0.0.1:"
                + port(ServerProperties.WILDFLY_MANAGEMENT_PORT) + "/metrics/application"));
        // The names under MicroProfile Metrics 3, which docs/observability.md lists.
        System.out.println("MP Metrics 3 names: " + metrics.body().lines().filter(l -> !l.startsWith("#"))
                .map(l -> l.replaceAll("[{ ].*", "")).filter(l -> l.contains("sluice")).distinct().sorted().toList());
        assertThat(metrics.statusCode()).as(metrics.body()).isEqualTo(200);
        assertThat(metrics.body()).contains("sluice_redis_reachable").contains("_allowed");
    }

    private static int port(int base) {
        return base + ServerProperties.wildflyPortOffset();
    }
}
