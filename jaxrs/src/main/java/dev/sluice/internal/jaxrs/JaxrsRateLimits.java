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
import dev.sluice.internal.runtime.ConfigReloads;
import dev.sluice.internal.runtime.Reloadable;
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
import java.util.function.Supplier;

/**
 * What the rate-limit filters of one JAX-RS application share: its configuration, and the policies of every
 * limited resource method, read again on {@code sluice.config.refresh} and JMX {@code reload()}; the runtime
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

    /** A resource method that carries {@code @RateLimited}, and its index in {@link #resolved}. */
    private record LimitedMethod(Class<?> resourceClass, Method method) {
    }

    private final ClassLoader loader;
    private final SluiceRuntime runtime;
    private final Supplier<ConfigSource> sources;
    private final SluiceConfig deployed;
    private final MethodPolicies methodPolicies;
    private final List<LimitedMethod> methods = new ArrayList<>();
    /**
     * The policies of every limited method, by its index in {@link #methods}: replaced whole by a reload, so a
     * request reads one consistent set with one volatile read.
     */
    private volatile List<List<RateLimitGate.Policy>> resolved = List.of();
    private AutoCloseable reloadRegistration;
    private final RateLimitGate gate;
    private final ClientAddress clientAddress;
    private final boolean servletApi;
    private final AtomicBoolean warnedMissingPeer = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();

    private JaxrsRateLimits(ClassLoader loader, Supplier<ConfigSource> sources, ConfigSource source,
            SluiceConfig config, SluiceRuntime runtime, boolean servletApi) {
        this.loader = loader;
        this.runtime = runtime;
        this.sources = sources;
        this.deployed = config;
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
        ConfigSource properties = sluiceProperties(applicationProperties);
        // Detected again on every reload: the fallback chain reads system properties when it is built.
        Supplier<ConfigSource> sources = () -> ConfigSources.detect(loader, properties);
        ConfigSource source = sources.get();
        SluiceConfig config = SluiceConfigLoader.load(source);
        SluiceRuntime runtime = SluiceRuntimes.acquire(loader, config);
        JaxrsRateLimits rateLimits;
        try {
            rateLimits = new JaxrsRateLimits(loader, sources, source, config, runtime, servletApiVisible(loader));
            rateLimits.register();
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
        List<RateLimitGate.Policy> limits = limits(methodPolicies, resourceClass, method);
        if (limits.isEmpty() && deployed.configRefresh().isZero()) {
            // Only a refresh could switch one of its policies on; without one, the method needs no filter.
            return;
        }
        int index;
        synchronized (methods) {
            index = methods.size();
            methods.add(new LimitedMethod(resourceClass, method));
            List<List<RateLimitGate.Policy>> next = new ArrayList<>(resolved);
            next.add(limits);
            resolved = List.copyOf(next);
        }
        if (servletApi) {
            context.register(ServletPeerFilter.class, priority - 1);
        }
        context.register(new RateLimitRequestFilter(index, this), priority);
        context.register(new RateLimitResponseFilter(this), priority);
        context.register(new RateLimitWriterInterceptor(), priority);
    }

    private List<RateLimitGate.Policy> limits(MethodPolicies from, Class<?> resourceClass, Method method) {
        List<PolicyConfig> policies = from.resolve(resourceClass, method);
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
        return List.copyOf(limits);
    }

    /** The policies of the method at {@code index}, as they are in force now. */
    List<RateLimitGate.Policy> policies(int index) {
        return resolved.get(index);
    }

    private void register() {
        Reloadable reloadable = new Reloadable() {
            @Override
            public String describe() {
                return "JAX-RS application";
            }

            @Override
            public ConfigReloads.Outcome reload() {
                return JaxrsRateLimits.this.reload();
            }
        };
        synchronized (methods) {
            reloadRegistration = runtime.reloads().register(reloadable, loader, deployed.configRefresh());
        }
    }

    /**
     * Resolves every limited method's policies again, configuration over annotations as at deployment, and
     * swaps them all at once; a bad value anywhere throws before anything is swapped.
     */
    private ConfigReloads.Outcome reload() {
        ConfigSource source = sources.get();
        SluiceConfig reread = SluiceConfigLoader.load(source);
        MethodPolicies fresh = new MethodPolicies(source);
        List<LimitedMethod> limited;
        List<List<RateLimitGate.Policy>> before;
        synchronized (methods) {
            limited = List.copyOf(methods);
            before = resolved;
        }
        List<List<RateLimitGate.Policy>> after = new ArrayList<>(limited.size());
        Map<String, PolicyConfig> was = new TreeMap<>();
        Map<String, PolicyConfig> is = new TreeMap<>();
        for (int i = 0; i < limited.size(); i++) {
            List<RateLimitGate.Policy> limits = limits(fresh, limited.get(i).resourceClass(), limited.get(i).method());
            after.add(limits);
            if (!configs(limits).equals(configs(before.get(i)))) {
                before.get(i).forEach(p -> was.putIfAbsent(p.name(), p.config()));
                limits.forEach(p -> is.putIfAbsent(p.name(), p.config()));
            }
        }
        List<ConfigReloads.Change> changes = ConfigReloads.changes(was, is);
        synchronized (methods) {
            if (closed.get() || resolved != before) {
                return ConfigReloads.Outcome.NONE;
            }
            if (!changes.isEmpty() || !was.isEmpty() || !is.isEmpty()) {
                // Methods configured meanwhile keep what they resolved at deployment.
                List<List<RateLimitGate.Policy>> next = new ArrayList<>(after);
                next.addAll(resolved.subList(after.size(), resolved.size()));
                resolved = List.copyOf(next);
            }
        }
        return new ConfigReloads.Outcome(changes, ConfigReloads.notApplied(deployed, reread));
    }

    private static List<PolicyConfig> configs(List<RateLimitGate.Policy> limits) {
        return limits.stream().map(RateLimitGate.Policy::config).toList();
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
            AutoCloseable registration;
            synchronized (methods) {
                registration = reloadRegistration;
                reloadRegistration = null;
            }
            if (registration != null) {
                try {
                    registration.close();
                } catch (Exception e) {
                    LOG.log(Level.DEBUG, "Sluice: could not stop reloading a closed JAX-RS application", e);
                }
            }
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
