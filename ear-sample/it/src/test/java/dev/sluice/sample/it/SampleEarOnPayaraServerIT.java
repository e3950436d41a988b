package dev.sluice.sample.it;

import dev.sluice.servers.Http;
import dev.sluice.servers.SampleApp;
import dev.sluice.servers.SessionBeanScenarios;
import dev.sluice.servers.ServerProperties;
import java.net.http.HttpResponse;
import java.util.List;

import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's EAR on Payara Server (Payara Micro deploys no EARs). Sluice's Redis comes from
 * Payara's MicroProfile Config ({@code asadmin set-config-property}), users from the file realm.
 */
class SampleEarOnPayaraServerIT extends SessionBeanScenarios {

    @RegisterExtension
    @Order(3)
    static final PayaraServer payara = new PayaraServer(redis)
            .deploy(Deployments.directory().resolve("sample.ear"));

    @Override
    protected List<SampleApp> apps() {
        return List.of(SampleApp.ear(payara.root()));
    }

    /** Payara Server's MicroProfile Health ({@code /health/ready} on the HTTP listener) carries Sluice's check. */
    @Test
    @Order(50)
    void readinessIncludesSluiceRedisUp() {
        HttpResponse<String> ready = Http.get(payara.root().resolve("health/ready"));
        System.out.println("Payara Server /health/ready: " + ready.statusCode() + " " + ready.body());
        assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
        assertThat(ready.body()).contains("\"sluice-redis\"");
    }

    /** Payara Server's MicroProfile Metrics ({@code /metrics} on the HTTP listener) shows Sluice's metrics. */
    @Test
    @Order(51)
    void metricsReachTheServersMicroProfileMetrics() {
        HttpResponse<String> metrics = Http.get(payara.root().resolve("metrics"));
        System.out.println("Payara Server /metrics: " + metrics.statusCode() + ", sluice lines: "
                + metrics.body().lines().filter(l -> l.contains("sluice")).limit(20).toList());
        assertThat(metrics.statusCode()).as(metrics.body()).isEqualTo(200);
        assertThat(metrics.body()).contains("sluice_redis_reachable").contains("_allowed");
    }
}
