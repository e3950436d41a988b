package dev.sluice.internal.jaxrs;

import dev.sluice.SluiceConfigException;
import dev.sluice.internal.http.AdapterConfig;
import dev.sluice.internal.http.AdapterLifecycle;
import dev.sluice.internal.http.AdapterSettings;
import dev.sluice.internal.http.AnnotatedPolicies;
import dev.sluice.internal.http.ExceptionResponses;
import dev.sluice.internal.http.MethodLimits;
import dev.sluice.internal.http.RateLimitGate;

import jakarta.ws.rs.core.FeatureContext;

import java.lang.System.Logger.Level;
import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What the rate-limit filters of one JAX-RS application share: its configuration, and the policies of every
 * limited resource method, read again on {@code sluice.config.refresh} and JMX {@code reload()}; the runtime
 * (Redis pool or in-process store), shared with the servlet filter and CDI beans of the same application;
 * the gate with its circuit breaker; the client-address rules. All of it is held by one
 * {@link AdapterLifecycle}, whose snapshot is the {@link MethodLimits} of the application.
 *
 * <p>Created by {@code RateLimitFeature} for the first resource method that carries {@code @RateLimited}, so
 * an application that has the feature but no limited method never connects to Redis. Thread-safe.
 */
public final class JaxrsRateLimits implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger("dev.sluice");

    /** Open instances by application class loader, for {@link #closeAll}; entries leave on close. */
    private static final Map<ClassLoader, Set<JaxrsRateLimits>> OPEN = new HashMap<>();

    private final ClassLoader loader;
    private final AdapterLifecycle<MethodLimits> lifecycle = new AdapterLifecycle<>();
    private final AdapterConfig deployed;
    /** The deployment's resolution: one for all methods, so that two cannot disagree on a policy's buckets. */
    private final MethodPolicies methodPolicies;
    private final boolean servletApi;
    private final AtomicBoolean warnedMissingPeer = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();

    private JaxrsRateLimits(ClassLoader loader, AdapterConfig config, boolean servletApi) {
        this.loader = loader;
        this.deployed = config;
        this.methodPolicies = new MethodPolicies(config.annotatedPolicies());
        this.servletApi = servletApi;
    }

    /**
     * Reads the application's settings and acquires its runtime. The settings used here are the
     * application's own, even when the runtime was started first by the servlet filter with its init-params.
     *
     * @param loader                the application's class loader
     * @param applicationProperties JAX-RS configuration properties; those named {@code sluice.*} stand
     *                              where servlet context-params stand in the contract's fallback chain
     * @throws SluiceConfigException when a setting is bad
     */
    public static JaxrsRateLimits start(ClassLoader loader, Map<String, Object> applicationProperties) {
        AdapterSettings settings = AdapterSettings.application(loader, applicationProperties);
        AdapterConfig config = settings.read();
        JaxrsRateLimits rateLimits = new JaxrsRateLimits(loader, config, servletApiVisible(loader));
        rateLimits.lifecycle.start(settings, config, "JAX-RS application",
                (reread, before) -> before == null ? MethodLimits.NONE : before.resolvedAgain(reread));
        synchronized (OPEN) {
            OPEN.computeIfAbsent(loader, l -> new HashSet<>()).add(rateLimits);
        }
        return rateLimits;
    }

    /**
     * Resolves the policies of one resource method and, when it has any, registers the filters for it.
     *
     * @param priority the request filter's priority; the servlet address bridge runs just before it
     * @throws SluiceConfigException naming the method and policy when the policies cannot be resolved
     */
    public void configure(Class<?> resourceClass, Method method, FeatureContext context, int priority) {
        String where = MethodPolicies.describe(resourceClass, method);
        List<AnnotatedPolicies.Declared> classLevel = MethodPolicies.classLevel(resourceClass);
        List<AnnotatedPolicies.Declared> methodLevel = MethodPolicies.methodLevel(resourceClass, method);
        List<RateLimitGate.Policy> limits = methodPolicies.resolve(where, classLevel, methodLevel);
        if (limits.isEmpty() && !deployed.refreshes()) {
            // Only a refresh could switch one of its policies on; without one, the method needs no filter.
            return;
        }
        int index = lifecycle.update(s -> s.with(where, classLevel, methodLevel, limits)).size() - 1;
        if (servletApi) {
            context.register(ServletPeerFilter.class, priority - 1);
        }
        context.register(new RateLimitRequestFilter(index, this), priority);
        context.register(new RateLimitResponseFilter(this), priority);
        context.register(new RateLimitWriterInterceptor(), priority);
    }

    /** What a request decides with now: one volatile read; null once closed. */
    AdapterLifecycle.Current<MethodLimits> current() {
        return lifecycle.current();
    }

    /**
     * Logs once when a key needed the client address but the runtime does not tell the peer (no servlet
     * container): every client then shares the bucket of the empty address.
     */
    void noticeMissingPeer(ContainerRequestView view) {
        if (view.clientAddressUsed() && !view.peerKnown() && warnedMissingPeer.compareAndSet(false, true)) {
            LOG.log(Level.WARNING, "Sluice: this JAX-RS runtime does not expose the client's address (it does not"
                    + " run on a servlet container), so policies keyed by ip, and by principal for anonymous"
                    + " requests, put every client in one bucket, and exempt CIDRs match no request; key such"
                    + " policies by principal or header, and exempt by principal or role, instead");
        }
    }

    /** Lets go of the runtime; the last user of an application's runtime closes its Redis pool. Idempotent. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            synchronized (OPEN) {
                Set<JaxrsRateLimits> open = OPEN.get(loader);
                if (open != null && open.remove(this) && open.isEmpty()) {
                    OPEN.remove(loader);
                }
            }
            lifecycle.close();
        }
    }

    /** Closes every instance started for {@code loader}'s application (its undeployment). */
    static void closeAll(ClassLoader loader) {
        Set<JaxrsRateLimits> open;
        synchronized (OPEN) {
            open = OPEN.remove(loader);
        }
        if (open != null) {
            open.forEach(JaxrsRateLimits::close);
        }
    }

    /**
     * The answers to Sluice's exceptions in the application's {@code sluice.headers} mode, for the exception
     * mapper; read without starting anything. A bad value is left for {@link #start} to report with the rest of
     * the configuration.
     */
    public static ExceptionResponses.InMode exceptionResponses(ClassLoader loader, Map<String, Object> applicationProperties) {
        return AdapterSettings.application(loader, applicationProperties).exceptionResponses();
    }

    private static boolean servletApiVisible(ClassLoader loader) {
        try {
            Class.forName("jakarta.servlet.http.HttpServletRequest", false, loader);
            Class.forName("jakarta.servlet.http.HttpServletRequest", false, JaxrsRateLimits.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
