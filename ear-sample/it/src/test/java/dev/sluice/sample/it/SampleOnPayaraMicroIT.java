package dev.sluice.sample.it;

import dev.sluice.servers.Http;
import dev.sluice.servers.SampleApp;
import dev.sluice.servers.SessionBeanScenarios;
import dev.sluice.servers.ServerProperties;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpResponse;
import java.util.List;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's WARs on Payara Micro (managed by Arquillian). Payara Micro deploys no EARs (it has
 * no EAR deployer; see docs/installation.md), so the EAR runs on Payara Server in
 * {@link SampleEarOnPayaraServerIT}.
 *
 * <p>The adapter starts one Payara Micro per Arquillian deployment, so the plain WAR is the
 * deployment and the bundle WAR joins it on the same command line ({@code --deploy}, see the POM).
 * Users alice and bob are created in the {@code file} realm by a post-boot command file; a
 * pre-boot command file binds HTTP to loopback.
 */
class SampleOnPayaraMicroIT extends SessionBeanScenarios {

    @RegisterExtension
    @Order(3)
    static final ArquillianExtension arquillian = new ArquillianExtension();

    @Deployment(testable = false)
    static WebArchive plainWar() {
        return Deployments.plainWar();
    }

    @ArquillianResource
    URL plainWarUrl;

    /** Payara Micro reports the machine's address; it listens on loopback only, which is where the tests go. */
    @Override
    protected List<SampleApp> apps() {
        URI root = URI.create("http://127.0.0.1:" + plainWarUrl.getPort() + "/");
        return List.of(SampleApp.plainWar(root), SampleApp.bundleWar(root));
    }

    /** Payara Micro's MicroProfile Metrics ({@code /metrics}) shows the metrics of both packagings. */
    @Test
    @Order(51)
    void metricsReachTheServersMicroProfileMetrics() {
        HttpResponse<String> metrics = Http.get(URI.create("http://127.0.0.1:" + plainWarUrl.getPort() + "/metrics"));
        System.out.println("Payara Micro /metrics: " + metrics.statusCode() + ", sluice lines: "
                + metrics.body().lines().filter(l -> l.contains("sluice")).limit(20).toList());
        assertThat(metrics.statusCode()).as(metrics.body()).isEqualTo(200);
        assertThat(metrics.body()).contains("sluice_redis_reachable").contains("_allowed");
    }
}
