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

    /** The URL of {@code path} below the application's root. */
    public URI uri(String path) {
        return base.resolve(path);
    }

    @Override
    public String toString() {
        return name + " at " + base;
    }
}
