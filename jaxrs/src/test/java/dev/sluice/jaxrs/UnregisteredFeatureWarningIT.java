package dev.sluice.jaxrs;

import dev.sluice.jaxrs.unregistered.Tracking;
import dev.sluice.test.LogCapture;
import dev.sluice.test.RedisServer;
import io.undertow.Undertow;
import io.undertow.servlet.Servlets;
import io.undertow.servlet.api.DeploymentInfo;
import io.undertow.servlet.api.DeploymentManager;
import io.undertow.servlet.api.ListenerInfo;
import io.undertow.servlet.api.ServletContainerInitializerInfo;
import io.undertow.servlet.util.ImmediateInstanceFactory;
import jakarta.servlet.ServletContainerInitializer;
import jakarta.servlet.ServletRequestEvent;
import jakarta.servlet.ServletRequestListener;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.servlet.ServletContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Jersey application whose {@code ResourceConfig} calls {@code packages(...)} over its own package, as the Java EE
 * 7 Cargo Tracker does: Jersey then never sees {@link RateLimitFeature}, and the {@code @RateLimited} method is not
 * limited. Sluice says so once, naming the method and how to register the feature; with the feature registered it
 * says nothing. Deployed in Undertow with the {@code @Path} classes handed to Sluice's initializers, as a servlet
 * container does for {@code @HandlesTypes}.
 */
class UnregisteredFeatureWarningIT {

    @RegisterExtension
    static final RedisServer REDIS = RedisServer.standalone();

    @RegisterExtension
    LogCapture logs = new LogCapture();

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    /** Counted down after Sluice's request listener ran: the container calls requestDestroyed in reverse order. */
    private final CountDownLatch requestEnded = new CountDownLatch(1);
    private DeploymentManager manager;
    private Undertow server;

    @AfterEach
    void undeploy() throws Exception {
        if (manager != null) {
            manager.stop();
            manager.undeploy();
        }
        if (server != null) {
            server.stop();
        }
    }

    @Test
    void packagesScanningWithoutTheFeatureWarnsOnceNamingTheLimitedMethod() throws Exception {
        URI base = deploy(new ResourceConfig().packages(Tracking.class.getPackageName()));

        HttpResponse<String> response = get(base, "tracking/42");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("RateLimit-Policy")).isEmpty();
        assertThat(get(base, "tracking/43").statusCode()).isEqualTo(200);

        await().atMost(10, TimeUnit.SECONDS).until(() -> !warnings().isEmpty());
        assertThat(requestEnded.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(warnings()).singleElement().satisfies(text -> assertThat(text)
                .contains(Tracking.class.getName() + "#find")
                .doesNotContain("#list")
                .contains("register(RateLimitFeature.class)"));
    }

    @Test
    void aRegisteredFeatureLimitsAndNothingIsWarned() throws Exception {
        URI base = deploy(new ResourceConfig().packages(Tracking.class.getPackageName())
                .register(RateLimitFeature.class));

        HttpResponse<String> response = get(base, "tracking/42");

        assertThat(response.headers().firstValue("RateLimit-Policy")).isPresent();
        assertThat(requestEnded.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(warnings()).isEmpty();
    }

    private List<String> warnings() {
        return logs.records(Level.WARNING, "dev.sluice").stream().map(logs::text)
                .filter(text -> text.contains("RateLimitFeature")).toList();
    }

    private URI deploy(ResourceConfig config) throws Exception {
        config.property("sluice.redis.uri", REDIS.uri());
        DeploymentInfo info = Servlets.deployment()
                // A loader of its own, as each deployment on a server has: Sluice tells applications apart by it.
                .setClassLoader(new ClassLoader(UnregisteredFeatureWarningIT.class.getClassLoader()) { })
                .setContextPath("/")
                .setDeploymentName("unregistered-feature")
                .addListener(new ListenerInfo(ServletRequestListener.class,
                        new ImmediateInstanceFactory<>(new ServletRequestListener() {
                            @Override
                            public void requestDestroyed(ServletRequestEvent event) {
                                requestEnded.countDown();
                            }
                        })))
                .addServlet(Servlets.servlet("jaxrs", ServletContainer.class,
                                new ImmediateInstanceFactory<>(new ServletContainer(config)))
                        .addMapping("/*").setLoadOnStartup(1));
        for (ServletContainerInitializer initializer : ServiceLoader.load(ServletContainerInitializer.class,
                UnregisteredFeatureWarningIT.class.getClassLoader())) {
            if (initializer.getClass().getName().startsWith("dev.sluice.")) {
                info.addServletContainerInitializer(new ServletContainerInitializerInfo(initializer.getClass(),
                        new ImmediateInstanceFactory<>(initializer), Set.of(Tracking.class)));
            }
        }
        manager = Servlets.newContainer().addDeployment(info);
        manager.deploy();
        server = Undertow.builder().addHttpListener(0, "127.0.0.1").setHandler(manager.start()).build();
        server.start();
        return URI.create("http://127.0.0.1:" + ((InetSocketAddress) server.getListenerInfo().get(0).getAddress()).getPort() + "/");
    }

    private HttpResponse<String> get(URI base, String path) throws Exception {
        return client.send(HttpRequest.newBuilder(base.resolve(path)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
