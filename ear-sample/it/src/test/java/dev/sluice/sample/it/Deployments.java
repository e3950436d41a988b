package dev.sluice.sample.it;

import java.nio.file.Files;
import java.nio.file.Path;

import org.jboss.shrinkwrap.api.Archive;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;

/**
 * The archives Maven built (copied to {@code target/deployments} by the POM), deployed exactly as a
 * user would deploy them: the tests add nothing to them.
 */
final class Deployments {

    private Deployments() {
    }

    static EnterpriseArchive ear() {
        return load(EnterpriseArchive.class, "sample.ear");
    }

    static WebArchive plainWar() {
        return load(WebArchive.class, "sample-plain.war");
    }

    static WebArchive bundleWar() {
        return load(WebArchive.class, "sample-bundle.war");
    }

    /** Where the build put the archives; the Payara run also hands these paths to Payara Micro. */
    static Path directory() {
        return Path.of(System.getProperty("sluice.it.deployments", "target/deployments"));
    }

    private static <T extends Archive<T>> T load(Class<T> type, String fileName) {
        Path file = directory().resolve(fileName);
        if (!Files.isRegularFile(file)) {
            throw new IllegalStateException(file + " is missing: run the tests through Maven (mvn verify), "
                    + "which builds the sample and copies it there");
        }
        return ShrinkWrap.createFromZipFile(type, file.toFile());
    }
}
