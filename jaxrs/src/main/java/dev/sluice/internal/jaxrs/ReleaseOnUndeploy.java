package dev.sluice.internal.jaxrs;

import jakarta.servlet.ServletContainerInitializer;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;

import java.util.Set;

/**
 * Releases the JAX-RS rate limits of a web application when it is undeployed, for runtimes that do not
 * call {@code @PreDestroy} on providers they created (RESTEasy outside CDI does not; Jersey does, and then
 * this finds nothing left to release). Also adds {@link ServletAsyncCompletion}, which sees event streams end.
 *
 * <p>Found by the servlet container through {@code META-INF/services}, so it only ever runs in servlet
 * containers, and only for the web application whose {@code WEB-INF/lib} holds this jar. Thread-safe.
 */
public final class ReleaseOnUndeploy implements ServletContainerInitializer {

    @Override
    public void onStartup(Set<Class<?>> classes, ServletContext context) {
        // Read now: containers may refuse getClassLoader() to listeners that were added programmatically.
        ClassLoader loader = context.getClassLoader();
        context.addListener(new Listener(loader != null ? loader : Thread.currentThread().getContextClassLoader()));
        context.addListener(new ServletAsyncCompletion());
    }

    /** Closes what {@code RateLimitFeature} acquired for the application's class loader. */
    static final class Listener implements ServletContextListener {
        private final ClassLoader loader;

        Listener(ClassLoader loader) {
            this.loader = loader;
        }

        @Override
        public void contextDestroyed(ServletContextEvent event) {
            JaxrsRateLimits.closeAll(loader);
        }
    }
}
