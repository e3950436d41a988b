package dev.sluice.internal.jaxrs;

import dev.sluice.jaxrs.RateLimited;

import jakarta.servlet.ServletContainerInitializer;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletRequestEvent;
import jakarta.servlet.ServletRequestListener;
import jakarta.servlet.annotation.HandlesTypes;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Path;

import java.lang.System.Logger.Level;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Warns once when a web application has {@code @RateLimited} resource methods but its JAX-RS runtime never started
 * {@code RateLimitFeature} (a Jersey {@code ResourceConfig} that calls {@code packages(...)}, an
 * {@code Application} that lists its classes without the feature): those methods are then not limited at all,
 * with no header, no Redis call and nothing else in the log.
 *
 * <p>The servlet container hands it the application's classes that carry {@code @RateLimited} on the class or on a
 * method ({@code @HandlesTypes}; Tomcat, Jetty and WildFly look at method annotations too). Sluice's own annotations,
 * not {@code @Path}: a container reads every initializer's {@code @HandlesTypes}, and where JAX-RS is absent (Tomcat
 * with {@code sluice-bundle}) a {@code Path.class} there would fail the application's start. The check runs when the first request ends: JAX-RS servlets start before
 * they serve, and servers start them with the application, so by then a registered feature has been configured.
 * A JAX-RS servlet that starts lazily, on its first request, after a first request to something else, would be
 * reported wrongly; most servers start theirs at deployment, Open Liberty's JAX-RS 2.1 ({@code javaee-8.0}) on its
 * first request (docs/installation.md). Thread-safe.
 */
@HandlesTypes({RateLimited.class, RateLimited.List.class})
public final class UnregisteredFeatureCheck implements ServletContainerInitializer {

    private static final System.Logger LOG = System.getLogger("dev.sluice");

    @Override
    public void onStartup(Set<Class<?>> classes, ServletContext context) {
        Set<String> limited;
        try {
            limited = limitedMethods(classes == null ? Set.of() : classes);
        } catch (LinkageError noJaxRs) {
            return; // @RateLimited classes without a JAX-RS API: nothing could ever register the feature
        }
        if (limited.isEmpty()) {
            return;
        }
        ClassLoader loader = context.getClassLoader();
        ClassLoader application = loader != null ? loader : Thread.currentThread().getContextClassLoader();
        context.addListener(new FirstRequest(application, limited));
    }

    /** {@code Class#method} of every resource method that {@code @RateLimited} limits, sorted. */
    static Set<String> limitedMethods(Set<Class<?>> resourceClasses) {
        Set<String> limited = new TreeSet<>();
        for (Class<?> type : resourceClasses) {
            for (Method method : type.getMethods()) {
                if (isResourceMethod(method) && MethodPolicies.annotated(type, method)) {
                    limited.add(type.getName() + "#" + method.getName());
                }
            }
        }
        return limited;
    }

    private static boolean isResourceMethod(Method method) {
        return method.isAnnotationPresent(Path.class) || Arrays.stream(method.getAnnotations())
                .anyMatch(a -> a.annotationType().isAnnotationPresent(HttpMethod.class));
    }

    /** Checks once, as the application's first request ends. */
    static final class FirstRequest implements ServletRequestListener {
        private final ClassLoader application;
        private final Set<String> limited;
        private final AtomicBoolean checked = new AtomicBoolean();

        FirstRequest(ClassLoader application, Set<String> limited) {
            this.application = application;
            this.limited = limited;
        }

        @Override
        public void requestDestroyed(ServletRequestEvent event) {
            if (checked.compareAndSet(false, true) && !FeatureStarts.startedIn(application)) {
                LOG.log(Level.WARNING, "Sluice: these @RateLimited methods are not limited, because the JAX-RS"
                        + " runtime did not register dev.sluice.jaxrs.RateLimitFeature: " + String.join(", ", limited)
                        + ". Register it: register(RateLimitFeature.class) in a Jersey ResourceConfig (packages(...)"
                        + " does not scan Sluice's JAR), or add RateLimitFeature.class to Application.getClasses()");
            }
        }
    }
}
