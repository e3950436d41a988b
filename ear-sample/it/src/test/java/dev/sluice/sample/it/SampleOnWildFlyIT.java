package dev.sluice.sample.it;

import java.net.URI;
import java.util.List;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The sample on WildFly (managed by Arquillian, {@code standalone-microprofile.xml}), its three
 * packagings deployed side by side. Users alice and bob come from the application realm's
 * properties files that the build copies into the server.
 */
class SampleOnWildFlyIT extends SampleScenarios {

    @RegisterExtension
    @Order(3)
    static final ArquillianExtension arquillian = new ArquillianExtension();

    @Deployment(name = "ear", testable = false, order = 1)
    static EnterpriseArchive ear() {
        return Deployments.ear();
    }

    @Deployment(name = "plain-war", testable = false, order = 2)
    static WebArchive plainWar() {
        return Deployments.plainWar();
    }

    @Deployment(name = "bundle-war", testable = false, order = 3)
    static WebArchive bundleWar() {
        return Deployments.bundleWar();
    }

    @Override
    List<SampleApp> apps() {
        URI root = URI.create("http://127.0.0.1:"
                + (ServerProperties.WILDFLY_HTTP_PORT + ServerProperties.wildflyPortOffset()) + "/");
        return List.of(SampleApp.ear(root), SampleApp.plainWar(root), SampleApp.bundleWar(root));
    }
}
