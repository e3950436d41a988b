package dev.sluice.sample.it;

import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith({SuiteEnvironment.class, ArquillianExtension.class})
class SmokeOnPayaraIT {
    @Deployment(testable = false)
    static WebArchive app() {
        return ShrinkWrap.create(WebArchive.class, "smoke.war")
                .addAsWebResource(new StringAsset("hello"), "index.txt");
    }

    @ArquillianResource
    URL base;

    @Test
    void serves() throws Exception {
        long t = System.nanoTime();
        HttpResponse<String> r = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create(base + "index.txt")).build(), HttpResponse.BodyHandlers.ofString());
        System.out.println("BASE " + base + " status " + r.statusCode());
        assertThat(r.body()).isEqualTo("hello");
    }
}
