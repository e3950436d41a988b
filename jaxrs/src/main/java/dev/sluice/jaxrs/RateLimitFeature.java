package dev.sluice.jaxrs;

import dev.sluice.internal.jaxrs.JaxrsRateLimits;
import dev.sluice.internal.jaxrs.SluiceExceptionMapper;
import dev.sluice.internal.jaxrs.MethodPolicies;
import dev.sluice.internal.jaxrs.FeatureStarts;

import jakarta.annotation.PreDestroy;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.core.Feature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Configuration;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.ext.Provider;

import java.lang.reflect.Method;
import java.util.Map;

/**
 * Enforces {@link RateLimited} on JAX-RS resource methods, on any JAX-RS 3.0+ runtime (Jersey on Payara
 * and GlassFish, RESTEasy on WildFly, and others).
 *
 * <p><b>Registration.</b> It is a {@code @Provider}, so runtimes that scan the application (an
 * {@code Application} subclass whose {@code getClasses()} is empty, or none) find it in {@code WEB-INF/lib}.
 * Applications that list their classes add it themselves:
 * <pre>{@code
 * public Set<Class<?>> getClasses() {
 *     return Set.of(SearchResource.class, RateLimitFeature.class);
 * }
 * }</pre>
 *
 * <p><b>What it does.</b> When the application is deployed, the runtime shows it each resource method; for
 * the ones carrying {@code @RateLimited} (on the method or its class) it resolves the policies once, layering
 * the configuration over the annotation's inline defaults, and fails the deployment with a
 * {@link dev.sluice.SluiceConfigException} naming the method and the policy when a policy is neither
 * configured nor given an inline rate. It then registers, for that method only, a request filter at
 * {@link #PRIORITY} that decides every policy of the request in one Redis round trip and answers 429 with
 * {@code Retry-After}, {@code RateLimit-Policy}, {@code RateLimit} and an {@code application/problem+json}
 * body before the resource runs, and a response filter that adds the informational headers to admitted
 * requests. Policies already charged by the servlet filter for the same request are not charged again. A
 * request's permits of concurrency limits are held until its entity is completely written (a writer
 * interceptor sees the end of a {@code StreamingOutput}, of a resumed response's entity, of an event stream).
 *
 * <p>Settings come from MicroProfile Config when the application has it, otherwise from the contract's
 * fallback chain, in which this application's JAX-RS properties named {@code sluice.*}
 * ({@code Application.getProperties()}) take the place of servlet context-params. They are read once, at
 * deployment. An application without any {@code @RateLimited} method never reads them nor connects to Redis.
 *
 * <p>Thread-safe. The runtime creates it; its share of the Redis pool is released when the runtime destroys
 * it ({@code @PreDestroy}) or, in a servlet container, when the web application stops.
 */
@Provider
public class RateLimitFeature implements Feature {

    /**
     * Priority of the request filter: {@code Priorities.AUTHENTICATION + 500}. After authentication, so
     * that {@code principal} keys see the user established by container or JAX-RS authentication filters
     * (which run at {@code AUTHENTICATION}); before authorization ({@code AUTHORIZATION}, where
     * {@code @RolesAllowed} is checked), so that requests that will be refused are still counted and a
     * client cannot probe protected methods at full speed; before entity reading and the resource.
     */
    public static final int PRIORITY = Priorities.AUTHENTICATION + 500;

    @Context
    private Configuration configuration;

    private JaxrsRateLimits rateLimits;

    /** Created by the JAX-RS runtime, from scanning or from {@code Application.getClasses()}. */
    public RateLimitFeature() {
    }

    /**
     * Registers the exception mapper: {@code LockNotAcquiredException} and {@code PermitNotAcquiredException}
     * become 503 with {@code Retry-After}, {@code RateLimitExceededException} 429 with the RateLimit headers,
     * {@code LockLostException} a 500; each with an {@code application/problem+json} body. An application's own
     * mapper for any of these exceptions wins.
     */
    @Override
    public boolean configure(FeatureContext context) {
        FeatureStarts.started(applicationLoader());
        Configuration config = configuration != null ? configuration : context.getConfiguration();
        Map<String, Object> properties = config == null ? Map.of() : config.getProperties();
        context.register(new SluiceExceptionMapper(JaxrsRateLimits.exceptionResponses(applicationLoader(), properties)),
                SluiceExceptionMapper.PRIORITY);
        // A DynamicFeature of its own rather than this class implementing both: Apache CXF (Open Liberty's jaxrs-2.x,
        // TomEE) only configures a provider that is a Feature and never shows it the resource methods.
        context.register(new MethodBinder(this));
        return true;
    }

    private void configureMethod(ResourceInfo resourceInfo, FeatureContext context) {
        Class<?> resourceClass = resourceInfo.getResourceClass();
        Method method = resourceInfo.getResourceMethod();
        if (resourceClass == null || method == null || !MethodPolicies.annotated(resourceClass, method)) {
            return;
        }
        JaxrsRateLimits shared = rateLimits(context);
        try {
            shared.configure(resourceClass, method, context, PRIORITY);
        } catch (RuntimeException e) {
            // the deployment fails: nothing will release the runtime later
            close();
            throw e;
        }
    }

    private synchronized JaxrsRateLimits rateLimits(FeatureContext context) {
        if (rateLimits == null) {
            Configuration config = configuration != null ? configuration : context.getConfiguration();
            Map<String, Object> properties = config == null ? Map.of() : config.getProperties();
            rateLimits = JaxrsRateLimits.start(applicationLoader(), properties);
        }
        return rateLimits;
    }

    private static ClassLoader applicationLoader() {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        return loader != null ? loader : RateLimitFeature.class.getClassLoader();
    }

    /** Releases the application's share of the Redis pool when the runtime undeploys the application. */
    @PreDestroy
    public synchronized void close() {
        if (rateLimits != null) {
            rateLimits.close();
            rateLimits = null;
        }
    }

    /** The {@code DynamicFeature} that shows each resource method to its feature. */
    static final class MethodBinder implements DynamicFeature {

        private final RateLimitFeature feature;

        MethodBinder(RateLimitFeature feature) {
            this.feature = feature;
        }

        @Override
        public void configure(ResourceInfo resourceInfo, FeatureContext context) {
            feature.configureMethod(resourceInfo, context);
        }
    }
}
