package dev.sluice.servers.liberty;

import java.net.URI;
import java.util.List;

import dev.sluice.servers.SampleApp;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The sample's plain WAR on Open Liberty with {@code jakartaee-11.0} alone
 * ({@code src/test/liberty/servers/sluice-ee11}): no MicroProfile Config, so Sluice reads {@code sluice.redis.uri}
 * from the environment ({@code SLUICE_REDIS_URI} in the server's {@code server.env}) and the rest from the WAR's
 * {@code META-INF/microprofile-config.properties}.
 */
class SampleOnLibertyJakartaEE11IT extends LibertyScenarios {

    @RegisterExtension
    @Order(3)
    static final LibertyServer liberty = new LibertyServer("sluice-ee11", 9481, "sample-plain")
            .writing("server.env", () -> "SLUICE_REDIS_URI=" + redis.uri() + "\n");

    @Override
    protected List<SampleApp> apps() {
        return List.of(SampleApp.plainWar(URI.create("http://127.0.0.1:" + liberty.httpPort() + "/")));
    }
}
