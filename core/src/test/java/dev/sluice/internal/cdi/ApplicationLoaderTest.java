package dev.sluice.internal.cdi;

import org.junit.jupiter.api.Test;

import java.net.URL;
import java.net.URLClassLoader;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which class loader the CDI extension keeps as the application's, given the guarded bean's class: the context
 * class loader when it is the bean's module loader or a view over it (Open Liberty's context class loader wraps
 * the module's), the bean's module loader when the context loader does not see the bean (an EAR's loader) or
 * defines a copy of its own.
 */
class ApplicationLoaderTest {

    /** A loader that defines nothing and answers from the module's loader, as Open Liberty's context loader does. */
    private static final class View extends ClassLoader {
        View(ClassLoader module) {
            super(module);
        }
    }

    @Test
    void theBeansOwnLoaderIsTheApplications() {
        assertThat(SluiceExtension.seesAsItsOwn(Orders.class.getClassLoader(), Orders.class)).isTrue();
    }

    @Test
    void aViewOverTheBeansLoaderIsTheApplications() {
        assertThat(SluiceExtension.seesAsItsOwn(new View(Orders.class.getClassLoader()), Orders.class)).isTrue();
    }

    @Test
    void aLoaderThatDoesNotSeeTheBeanIsNot() {
        assertThat(SluiceExtension.seesAsItsOwn(ClassLoader.getPlatformClassLoader(), Orders.class)).isFalse();
    }

    @Test
    void aLoaderWithItsOwnCopyOfTheBeanIsNot() throws Exception {
        URL classes = Orders.class.getProtectionDomain().getCodeSource().getLocation();
        try (URLClassLoader copy = new URLClassLoader(new URL[] {classes}, ClassLoader.getPlatformClassLoader())) {
            assertThat(Class.forName(Orders.class.getName(), false, copy)).isNotSameAs(Orders.class);
            assertThat(SluiceExtension.seesAsItsOwn(copy, Orders.class)).isFalse();
        }
    }
}
