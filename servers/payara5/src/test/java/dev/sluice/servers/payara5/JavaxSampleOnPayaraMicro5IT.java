package dev.sluice.servers.payara5;

import java.net.URI;
import java.net.URL;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import dev.sluice.servers.Http;
import dev.sluice.servers.SampleApp;
import dev.sluice.servers.SampleScenarios;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The javax sample WAR on Payara Micro 5.2022.5 (Java EE 8, MicroProfile 4.1: Config 2.0, Health 3.1,
 * Metrics 3.0) on JDK 17, managed by Arquillian, one server start, with its readiness check and metrics. Users alice and bob come from a post-boot
 * command file; a pre-boot command file binds HTTP to loopback.
 */
class JavaxSampleOnPayaraMicro5IT extends SampleScenarios {

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

    @ArquillianResource
    URL warUrl;

    /** Payara Micro reports the machine's address; it listens on loopback only, which is where the tests go. */
    @Override
    protected List<SampleApp> apps() {
        URI root = URI.create("http://127.0.0.1:" + warUrl.getPort() + "/");
        return List.of(new SampleApp("javax WAR", root.resolve("sample-javax/"), "sample-plain"));
    }

    @Test
    @Order(50)
    void readinessIncludesSluiceRedisUp() {
        HttpResponse<String> ready = Http.get(URI.create("http://127.0.0.1:" + warUrl.getPort() + "/health/ready"));
        assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
        assertThat(ready.body()).containsPattern("\"name\"\\s*:\\s*\"sluice-redis\"");
    }

    @Test
    @Order(51)
    void metricsReachTheServersMicroProfileMetrics() {
        HttpResponse<String> metrics = Http.get(URI.create("http://127.0.0.1:" + warUrl.getPort()
                + "/metrics/application"));
        // The names under MicroProfile Metrics 3, which docs/observability.md lists.
        System.out.println("MP Metrics 3 names: " + metrics.body().lines().filter(l -> !l.startsWith("#"))
                .map(l -> l.replaceAll("[{ ].*", "")).filter(l -> l.contains("sluice")).distinct().sorted().toList());
        assertThat(metrics.statusCode()).as(metrics.body()).isEqualTo(200);
        assertThat(metrics.body()).contains("sluice_redis_reachable").contains("_allowed");
    }
}
