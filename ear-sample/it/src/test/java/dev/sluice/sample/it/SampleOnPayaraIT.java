package dev.sluice.sample.it;

import java.net.URI;
import java.net.URL;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;

/**
 * The sample on Payara Micro (managed by Arquillian). The adapter starts one Payara Micro per
 * Arquillian deployment, so the EAR is the deployment and the two WARs are handed to the same
 * Payara Micro with {@code --deploy} (see the POM). Users alice and bob are created in the
 * {@code file} realm by a post-boot command file; a pre-boot command file binds HTTP to loopback.
 */
class SampleOnPayaraIT extends SampleScenarios {

    @Deployment(testable = false)
    static EnterpriseArchive ear() {
        return Deployments.ear();
    }

    @ArquillianResource
    URL earUrl;

    /** Payara Micro reports the machine's address; it listens on loopback only, which is where the tests go. */
    @Override
    URI serverRoot() {
        return URI.create("http://127.0.0.1:" + earUrl.getPort() + "/");
    }
}
