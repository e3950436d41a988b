package dev.sluice.internal.jaxrs;

import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.http.ClientAddress;

import org.glassfish.jersey.internal.MapPropertiesDelegate;
import org.glassfish.jersey.server.ContainerRequest;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The JAX-RS {@link dev.sluice.RequestView} over a real (Jersey) request, as a trusted proxy forwards it. */
class ContainerRequestViewTest {

    private static ContainerRequest request(String method) {
        ContainerRequest request = new ContainerRequest(URI.create("http://127.0.0.1/"),
                URI.create("http://127.0.0.1/login"), method, null, new MapPropertiesDelegate(), null);
        request.setProperty(ContainerRequestView.PEER_PROPERTY, "127.0.0.1");
        request.header("Forwarded", "for=192.0.2.60");
        request.header("X-Forwarded-For", "203.0.113.7");
        return request;
    }

    private static ContainerRequestView view(ContainerRequest request, Map<String, String> config) {
        return new ContainerRequestView(request, ClientAddress.of(SluiceConfigLoader.load(ConfigSources.of(config))));
    }

    @Test
    void reportsTheMethodInUpperCaseWhateverTheClientSent() {
        assertThat(view(request("post"), Map.of()).method()).isEqualTo("POST");
        assertThat(view(request("Delete"), Map.of()).method()).isEqualTo("DELETE");
    }

    @Test
    void readsOnlyTheConfiguredForwardingHeader() {
        assertThat(view(request("GET"), Map.of("sluice.trusted-proxies", "127.0.0.1")).clientAddress())
                .isEqualTo("203.0.113.7");
        assertThat(view(request("GET"), Map.of("sluice.trusted-proxies", "127.0.0.1",
                "sluice.forwarding-header", "forwarded")).clientAddress()).isEqualTo("192.0.2.60");
        assertThat(view(request("GET"), Map.of()).clientAddress()).as("no trusted proxy").isEqualTo("127.0.0.1");
    }
}
