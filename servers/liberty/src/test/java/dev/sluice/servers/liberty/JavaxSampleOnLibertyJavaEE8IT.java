package dev.sluice.servers.liberty;

import java.net.URI;
import java.util.List;

import dev.sluice.servers.SampleApp;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The javax twin of the sample's plain WAR ({@code servers/sample-javax}, the {@code sluice-*-javax} JARs in its
 * {@code WEB-INF/lib}) on Open Liberty with {@code javaee-8.0} ({@code src/test/liberty/servers/sluice-ee8}): no
 * MicroProfile Config, so Sluice reads {@code sluice.redis.uri} from a system property (the server's
 * {@code jvm.options}) and the rest from the WAR's {@code META-INF/microprofile-config.properties}.
 */
class JavaxSampleOnLibertyJavaEE8IT extends LibertyScenarios {

    @RegisterExtension
    @Order(3)
    static final LibertyServer liberty = new LibertyServer("sluice-ee8", 9482, "sample-javax")
            .writing("jvm.options", () -> "-Dsluice.redis.uri=" + redis.uri() + "\n");

    @Override
    protected LibertyServer server() {
        return liberty;
    }

    @Override
    protected List<SampleApp> apps() {
        return List.of(new SampleApp("javax WAR on Liberty javaee-8.0",
                URI.create("http://127.0.0.1:" + liberty.httpPort() + "/sample-javax/"), "sample-plain"));
    }
}
