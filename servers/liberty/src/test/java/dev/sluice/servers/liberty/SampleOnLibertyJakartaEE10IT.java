package dev.sluice.servers.liberty;

import java.net.URI;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.sluice.servers.Http;
import dev.sluice.servers.SampleApp;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's plain WAR on Open Liberty with {@code jakartaee-10.0}, {@code mpConfig-3.1}, {@code mpHealth-4.0} and
 * {@code mpMetrics-5.1} ({@code src/test/liberty/servers/sluice-ee10}). Sluice's configuration comes from Liberty's
 * MicroProfile Config: {@code sluice.redis.uri} is a {@code <variable>} in {@code configDropins/overrides},
 * {@code sluice.key-prefix} one in {@code server.xml} that wins over the WAR's {@code microprofile-config.properties}
 * (the scenarios look for the keys under that prefix), the policies come from that file.
 */
class SampleOnLibertyJakartaEE10IT extends LibertyScenarios {

    @RegisterExtension
    @Order(3)
    static final LibertyServer liberty = new LibertyServer("sluice-ee10", 9480, "sample-plain")
            .writing("configDropins/overrides/redis.xml", () -> "<server>\n  <variable name=\"sluice.redis.uri\" value=\""
                    + redis.uri() + "\"/>\n</server>\n");

    @Override
    protected LibertyServer server() {
        return liberty;
    }

    @Override
    protected List<SampleApp> apps() {
        return List.of(new SampleApp("plain WAR on Liberty jakartaee-10.0 + MicroProfile 6.1",
                URI.create("http://127.0.0.1:" + liberty.httpPort() + "/sample-plain/"), "liberty-ee10"));
    }

    @Test
    @Order(50)
    void readinessIncludesSluiceRedisUp() {
        HttpResponse<String> ready = Http.get(URI.create("http://127.0.0.1:" + liberty.httpPort() + "/health/ready"));
        assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
        // {"status":"UP","checks":[{"name":"sluice-redis","status":"UP","data":{...}},...]}, fields in any order
        String checks = ready.body().replaceAll("\\s", "").replaceAll("\"data\":\\{[^{}]*\\},?", "");
        Matcher sluice = Pattern.compile("\\{[^{}]*\"name\":\"sluice-redis\"[^{}]*}").matcher(checks);
        assertThat(sluice.find()).as(ready.body()).isTrue();
        assertThat(sluice.group()).as(ready.body()).contains("\"status\":\"UP\"");
    }

    @Test
    @Order(51)
    void metricsReachTheServersMicroProfileMetrics() {
        HttpResponse<String> metrics = Http.get(URI.create("http://127.0.0.1:" + liberty.httpPort()
                + "/metrics?scope=application"));
        // The names under MicroProfile Metrics 5, which docs/observability.md lists.
        System.out.println("Liberty mpMetrics-5.1 names: " + metrics.body().lines().filter(l -> !l.startsWith("#"))
                .map(l -> l.replaceAll("[{ ].*", "")).filter(l -> l.contains("sluice")).distinct().sorted().toList());
        assertThat(metrics.statusCode()).as(metrics.body()).isEqualTo(200);
        assertThat(metrics.body()).contains("sluice_redis_reachable").contains("_allowed");
    }
}
