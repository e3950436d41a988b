package dev.sluice.internal.config;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Enumeration;

/**
 * Simulates a deployment where MicroProfile Config is missing, or present as a bare API jar. Sluice's own
 * classes are defined anew here (child-first), so they link against what this loader lets them see, not
 * against the test class path. {@code META-INF/microprofile-config.properties} is read from {@code dir}.
 */
final class HidingClassLoader extends URLClassLoader {

    enum Mode {
        /** No MicroProfile Config classes at all. */
        NO_MICROPROFILE,
        /** The MicroProfile Config API, but no implementation registered for it. */
        API_WITHOUT_IMPLEMENTATION
    }

    private static final String RESOLVER_SERVICE =
            "META-INF/services/org.eclipse.microprofile.config.spi.ConfigProviderResolver";

    private final Mode mode;

    HidingClassLoader(Path dir, Mode mode) {
        super(new URL[] {toUrl(dir)}, HidingClassLoader.class.getClassLoader());
        this.mode = mode;
    }

    private static URL toUrl(Path dir) {
        try {
            return dir.toUri().toURL();
        } catch (MalformedURLException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        synchronized (getClassLoadingLock(name)) {
            Class<?> c = findLoadedClass(name);
            if (c == null) {
                boolean microprofile = name.startsWith("org.eclipse.microprofile.");
                if (name.startsWith("io.smallrye.") || (microprofile && mode == Mode.NO_MICROPROFILE)) {
                    throw new ClassNotFoundException(name + " is hidden from this test");
                }
                if (microprofile || (name.startsWith("dev.sluice.") && !name.equals(HidingClassLoader.class.getName()))) {
                    c = defineHere(name);
                } else {
                    c = getParent().loadClass(name);
                }
            }
            if (resolve) {
                resolveClass(c);
            }
            return c;
        }
    }

    private Class<?> defineHere(String name) throws ClassNotFoundException {
        try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
            if (in == null) {
                throw new ClassNotFoundException(name);
            }
            byte[] bytes = in.readAllBytes();
            return defineClass(name, bytes, 0, bytes.length);
        } catch (IOException e) {
            throw new ClassNotFoundException(name, e);
        }
    }

    @Override
    public Enumeration<URL> getResources(String name) throws IOException {
        if (name.equals(RESOLVER_SERVICE)) {
            return Collections.emptyEnumeration();
        }
        if (name.equals(ConfigSources.PROPERTIES_FILE)) {
            return findResources(name); // only this test's file, not those of the test class path
        }
        return super.getResources(name);
    }
}
