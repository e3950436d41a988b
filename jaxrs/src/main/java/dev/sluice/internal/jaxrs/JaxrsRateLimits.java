package dev.sluice.internal.jaxrs;

import dev.sluice.SluiceConfigException;
import dev.sluice.internal.config.ConfigProblems;
import dev.sluice.internal.config.ConfigSource;
import dev.sluice.internal.config.HeaderMode;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.http.ClientAddress;
import dev.sluice.internal.http.RateLimitGate;
import dev.sluice.internal.metrics.Kind;
import dev.sluice.internal.runtime.SluiceRuntime;
import dev.sluice.internal.runtime.SluiceRuntimes;

import jakarta.ws.rs.core.FeatureContext;

import java.lang.System.Logger.Level;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What the rate-limit filters of one JAX-RS application share: its configuration, read once; the runtime
 * (Redis pool or in-process store), shared with the servlet filter and CDI beans of the same application;
 * the gate with its circuit breaker; the client-address rules.
 *
 * <p>Created by {@code RateLimitFeature} for the first resource method that carries {@code @RateLimited}, so
 * an application that has the feature but no limited method never connects to Redis. Thread-safe.
 */
public final class JaxrsRateLimits implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger("dev.sluice");

    /** Open instances by application class loader, for {@link #closeAll}; entries leave on close. */
    private static final Map<ClassLoader, Set<JaxrsRateLimits>> OPEN = new HashMap<>();

    private final ClassLoader loader;
    private final SluiceRuntime runtime;
    private final MethodPolicies methodPolicies;
    private final RateLimitGate gate;
    private final ClientAddress clientAddress;
    private final boolean servletApi;
    private final AtomicBoolean warnedMissingPeer = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();

    private JaxrsRateLimits(ClassLoader loader, ConfigSource source, SluiceConfig config, SluiceRuntime runtime,
            boolean servletApi) {
        this.loader = loader;
        this.runtime = runtime;
        this.methodPolicies = new MethodPolicies(source);
        this.gate = RateLimitGate.of(runtime, config.headers());
        this.clientAddress = ClientAddress.of(config);
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
        ConfigSource source = ConfigSources.detect(loader, sluiceProperties(applicationProperties));
        SluiceConfig config = SluiceConfigLoader.load(source);
        SluiceRuntime runtime = SluiceRuntimes.acquire(loader, config);
        JaxrsRateLimits rateLimits;
        try {
            rateLimits = new JaxrsRateLimits(loader, source, config, runtime, servletApiVisible(loader));
        } catch (RuntimeException | Error e) {
            SluiceRuntimes.release(runtime);
            throw e;
        }
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
        List<PolicyConfig> policies = methodPolicies.resolve(resourceClass, method);
        if (policies.isEmpty()) {
            return;
        }
        List<RateLimitGate.Policy> limits = new ArrayList<>(policies.size());
        for (PolicyConfig policy : policies) {
            // Inline @RateLimited policies are in no configuration the runtime saw; their names come from
            // annotations, so they may be metric names (else they would count under "(other)").
            runtime.metrics().register(Kind.RATE_LIMIT, policy.name());
            try {
                limits.add(RateLimitGate.Policy.of(policy, true));
            } catch (SluiceConfigException e) {
                throw ConfigProblems.onAnnotation("@RateLimited(\"" + policy.name() + "\")",
                        MethodPolicies.describe(resourceClass, method), e);
            }
        }
        if (servletApi) {
            context.register(ServletPeerFilter.class, priority - 1);
        }
        context.register(new RateLimitRequestFilter(limits, this), priority);
        context.register(new RateLimitResponseFilter(this), priority);
    }

    RateLimitGate gate() {
        return gate;
    }

    ClientAddress clientAddress() {
        return clientAddress;
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
            SluiceRuntimes.release(runtime);
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
     * {@code sluice.headers} as the application sets it, for the exception mappers; read without starting
     * anything. A bad value is left for {@link #start} to report with the rest of the configuration.
     */
    public static HeaderMode headerMode(ClassLoader loader, Map<String, Object> applicationProperties) {
        try {
            return SluiceConfigLoader.headerMode(ConfigSources.detect(loader, sluiceProperties(applicationProperties)));
        } catch (SluiceConfigException e) {
            return HeaderMode.IETF;
        }
    }

    private static ConfigSource sluiceProperties(Map<String, Object> properties) {
        Map<String, String> sluice = new TreeMap<>();
        properties.forEach((name, value) -> {
            if (name.startsWith(ConfigSources.PREFIX) && value != null) {
                sluice.put(name, value.toString());
            }
        });
        return ConfigSources.of(sluice);
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
