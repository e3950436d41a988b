package dev.sluice.servers;

import java.net.URI;

/**
 * One packaging of the sample as deployed on the server under test.
 *
 * @param name      what failures call it
 * @param base      its root URL, ending in {@code /}
 * @param keyPrefix its {@code sluice.key-prefix}, so tests can look for its keys in Redis
 */
public record SampleApp(String name, URI base, String keyPrefix) {

    /** The EAR: Sluice JARs in lib/, filter declared in web.xml. */
    public static SampleApp ear(URI serverRoot) {
        return new SampleApp("EAR", serverRoot.resolve("sample/"), "sample");
    }

    /** The plain WAR: Sluice JARs in WEB-INF/lib, filter registered by its web fragment. */
    public static SampleApp plainWar(URI serverRoot) {
        return new SampleApp("plain WAR", serverRoot.resolve("sample-plain/"), "sample-plain");
    }

    /** The WAR whose only library is sluice-bundle. */
    public static SampleApp bundleWar(URI serverRoot) {
        return new SampleApp("bundle WAR", serverRoot.resolve("sample-bundle/"), "sample-bundle");
    }

    /** The URL of {@code path} below the application's root. */
    public URI uri(String path) {
        return base.resolve(path);
    }

    @Override
    public String toString() {
        return name + " at " + base;
    }
}
