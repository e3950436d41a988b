package dev.sluice.internal.cdi;

import dev.sluice.Bounded;
import dev.sluice.Locked;
import dev.sluice.SluiceConfigException;
import dev.sluice.SluiceException;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.http.AdapterConfig;
import dev.sluice.internal.http.AdapterLifecycle;
import dev.sluice.internal.http.AdapterSettings;
import dev.sluice.internal.metrics.Kind;
import dev.sluice.internal.metrics.MetricsBridges;
import dev.sluice.internal.runtime.SluiceRuntime;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.AfterBeanDiscovery;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.AfterTypeDiscovery;
import jakarta.enterprise.inject.spi.AnnotatedMethod;
import jakarta.enterprise.inject.spi.AnnotatedType;
import jakarta.enterprise.inject.spi.BeforeBeanDiscovery;
import jakarta.enterprise.inject.spi.ProcessAnnotatedType;
import jakarta.enterprise.inject.spi.ProcessSyntheticAnnotatedType;
import jakarta.enterprise.inject.spi.BeforeShutdown;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessManagedBean;
import jakarta.enterprise.inject.spi.WithAnnotations;
import jakarta.interceptor.Interceptor;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The portable extension that brings Sluice to a CDI application without {@code beans.xml} changes,
 * whether sluice-core sits in {@code WEB-INF/lib} or in an EAR's {@code lib/}: it adds the
 * {@code @Locked}/{@code @Bounded} interceptors (enabled application-wide by their {@code @Priority}) and
 * the {@link DefaultSluice} bean, parses every guarded method once into the {@link GuardedMethods} the
 * interceptors look up, fails deployment on an invalid annotation or configuration, and holds
 * the application's {@link SluiceRuntime} from deployment until shutdown. It also registers the
 * {@code @Locked} and {@code @Bounded} names it sees as metric names, publishes the metrics through the
 * application's MicroProfile Metrics or Micrometer registry bean when there is one, and adds the
 * {@code sluice-redis} readiness check when the MicroProfile Health API is present.
 *
 * <p>Registered through {@code META-INF/services/jakarta.enterprise.inject.spi.Extension}. Its observers are
 * called by the container one at a time; {@link #runtime()} is safe to call from any thread afterwards.
 */
public class SluiceExtension implements Extension {

    private final Function<ClassLoader, SluiceConfig> configLoader;
    /** A runtime built by someone else, who also closes it; null when this extension acquires one. */
    private final SluiceRuntime given;
    private ClassLoader application;
    /** The first bean class carrying @Locked/@Bounded: its loader is the user's module, whose config we want. */
    private Class<?> guardedBean;
    private AdapterSettings settings;
    private AdapterConfig config;
    private final GuardedMethods.Builder guards = new GuardedMethods.Builder();
    private volatile GuardedMethods guarded = GuardedMethods.NONE;
    /** The runtime and the rate-limit policies in force for {@code Sluice.limiter()}, swapped whole by a reload. */
    private final AdapterLifecycle<LimiterPolicies> lifecycle = new AdapterLifecycle<>();

    /** Reads configuration from MicroProfile Config, or the contract's fallback chain where it is absent. */
    public SluiceExtension() {
        this(cl -> SluiceConfigLoader.load(ConfigSources.detect(cl, null)));
    }

    /** An extension with configuration from elsewhere (tests, embedded use). */
    public SluiceExtension(Function<ClassLoader, SluiceConfig> configLoader) {
        this.configLoader = configLoader;
        this.given = null;
    }

    private SluiceExtension(SluiceRuntime runtime) {
        this.configLoader = cl -> runtime.config();
        this.given = runtime;
    }

    /** An extension over a runtime built and closed by the caller (tests, embedded use). */
    public static SluiceExtension over(SluiceRuntime runtime) {
        return new SluiceExtension(runtime);
    }

    void addBeans(@Observes BeforeBeanDiscovery event, BeanManager beanManager) {
        ClassLoader tccl = Thread.currentThread().getContextClassLoader();
        application = tccl != null ? tccl : SluiceExtension.class.getClassLoader();
        for (Class<?> type : new Class<?>[] {LockedInterceptor.class, BoundedInterceptor.class, DefaultSluice.class}) {
            event.addAnnotatedType(beanManager.createAnnotatedType(type), SluiceExtension.class.getName() + "#" + type.getSimpleName());
        }
    }

    private static final String HEALTH_CHECK = "dev.sluice.internal.cdi.SluiceRedisHealthCheck";
    private boolean healthCheckDiscovered;

    /**
     * Notes whether the container discovered the health check in sluice-core's own bean archive
     * (META-INF/beans.xml). Servers look readiness checks up through the application's BeanManager, and a bean
     * that only an extension added lives in the extension's archive, which WildFly's health lookup does not
     * see; a discovered one is found like any application bean. Restricted to sluice-core's discoverable classes:
     * an observer of every type would be notified for each class of the application (and Weld says so, WELD-000411).
     */
    void noteDiscoveredHealthCheck(@Observes @WithAnnotations(DiscoverableInSluiceCore.class) ProcessAnnotatedType<?> event) {
        if (!(event instanceof ProcessSyntheticAnnotatedType)
                && HEALTH_CHECK.equals(event.getAnnotatedType().getJavaClass().getName())) {
            healthCheckDiscovered = true;
        }
    }

    /** Where sluice-core is not scanned (Weld SE with explicit classes, tests), the extension adds the check. */
    void addHealthCheckIfNotDiscovered(@Observes AfterTypeDiscovery event, BeanManager beanManager) {
        if (!healthCheckDiscovered && healthApiPresent()) {
            // Named only here, after the check: without MP Health the class is never loaded.
            event.addAnnotatedType(beanManager.createAnnotatedType(SluiceRedisHealthCheck.class),
                    SluiceExtension.class.getName() + "#SluiceRedisHealthCheck");
        }
    }

    /** Whether the MicroProfile Health API resolves from Sluice's class loader, which links the check. */
    static boolean healthApiPresent() {
        try {
            Class.forName("org.eclipse.microprofile.health.HealthCheck", false, SluiceExtension.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /**
     * Parses the {@code @Locked}/{@code @Bounded} methods of every managed bean (session beans included) into
     * the model, as the container sees the bean: its final annotated type, after other extensions changed it,
     * and its bean class. Invalid annotations become definition errors, so the deployment fails. Wildcards rather
     * than a type variable: Eclipse Transformer leaves a jakarta copy of a generic method signature in the javax
     * JARs' constant pool when it has type parameters.
     */
    void collectGuardedMethods(@Observes ProcessManagedBean<?> event) {
        AnnotatedType<?> type = event.getAnnotatedBeanClass();
        // Interceptor classes carry their binding to declare what they intercept, not to be intercepted.
        if (type.isAnnotationPresent(Interceptor.class) || !isGuarded(type)) {
            return;
        }
        Class<?> beanClass = event.getBean().getBeanClass();
        for (AnnotatedMethod<?> method : businessMethods(type)) {
            Locked locked = method.isAnnotationPresent(Locked.class) ? method.getAnnotation(Locked.class)
                    : type.getAnnotation(Locked.class);
            Bounded bounded = method.isAnnotationPresent(Bounded.class) ? method.getAnnotation(Bounded.class)
                    : type.getAnnotation(Bounded.class);
            guards.add(beanClass, method.getJavaMember(), locked, bounded).forEach(event::addDefinitionError);
        }
        if (guardedBean == null) {
            guardedBean = beanClass;
        }
    }

    /**
     * Whether {@code loader} resolves {@code beanClass}'s name to that very class: then it is the module's loader
     * or a view over it, and stays the application's loader. Open Liberty gives the extension, the servlet filter
     * and JAX-RS a context class loader that wraps the module's loader, and the runtime is keyed by the loader:
     * the module's own would give the CDI beans a runtime apart from the filter's.
     */
    static boolean seesAsItsOwn(ClassLoader loader, Class<?> beanClass) {
        if (loader == beanClass.getClassLoader()) {
            return true;
        }
        try {
            return Class.forName(beanClass.getName(), false, loader) == beanClass;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    private static boolean isGuarded(AnnotatedType<?> type) {
        return type.isAnnotationPresent(Locked.class) || type.isAnnotationPresent(Bounded.class)
                || type.getMethods().stream().anyMatch(m -> m.isAnnotationPresent(Locked.class)
                        || m.isAnnotationPresent(Bounded.class));
    }

    /**
     * The methods an interceptor can wrap (non-private, non-static, not Object's), one per signature: where a
     * subclass overrides a superclass's method, the override.
     */
    private static Collection<AnnotatedMethod<?>> businessMethods(AnnotatedType<?> type) {
        Map<String, AnnotatedMethod<?>> bySignature = new LinkedHashMap<>();
        for (AnnotatedMethod<?> method : type.getMethods()) {
            Method m = method.getJavaMember();
            int mod = m.getModifiers();
            if (Modifier.isPrivate(mod) || Modifier.isStatic(mod) || m.isSynthetic() || m.isBridge()
                    || m.getDeclaringClass() == Object.class) {
                continue;
            }
            bySignature.merge(m.getName() + Arrays.toString(m.getParameterTypes()), method, (a, b) ->
                    a.getJavaMember().getDeclaringClass().isAssignableFrom(b.getJavaMember().getDeclaringClass()) ? b : a);
        }
        return bySignature.values();
    }

    void loadConfig(@Observes AfterBeanDiscovery event) {
        // In an EAR the extension runs with the EAR's class loader, which does not see a WAR's
        // META-INF/microprofile-config.properties; the guarded beans' own module does (and shares its
        // runtime with the servlet filter of the same WAR).
        if (guardedBean != null && !seesAsItsOwn(application, guardedBean)) {
            application = guardedBean.getClassLoader();
        }
        try {
            settings = AdapterSettings.loaded(application, configLoader);
            config = settings.read();
            guarded = guards.build(config.config());
        } catch (SluiceConfigException e) {
            event.addDefinitionError(e);
        }
    }

    void startRuntime(@Observes AfterDeploymentValidation event, BeanManager beanManager) {
        if (config == null) {
            return;
        }
        try {
            if (given != null) {
                lifecycle.startOver(given, config, (c, before) -> LimiterPolicies.of(c));
            } else {
                lifecycle.start(settings, config, "programmatic rate limiters (Sluice.limiter)",
                        (c, before) -> LimiterPolicies.of(c));
            }
        } catch (SluiceException e) {
            event.addDeploymentProblem(e);
            return;
        }
        SluiceRuntime started = lifecycle.current().runtime();
        guarded.lockNames().forEach(name -> started.metrics().register(Kind.LOCK, name));
        guarded.semaphoreNames().forEach(name -> started.metrics().register(Kind.SEMAPHORE, name));
        MetricsBridges.withBeans(started.metrics(), application, type -> bean(beanManager, type));
    }

    /** The configured rate-limit policy {@code name} as last (re)loaded; empty if none. */
    Optional<PolicyConfig> policy(String name) {
        AdapterLifecycle.Current<LimiterPolicies> c = lifecycle.current();
        return c == null ? Optional.empty() : c.snapshot().policy(name);
    }

    /** The one bean of {@code type} with the default qualifier, as a contextual reference; empty if none or ambiguous. */
    private static Optional<Object> bean(BeanManager beanManager, Class<?> type) {
        try {
            Set<Bean<?>> beans = beanManager.getBeans(type);
            if (beans.isEmpty()) {
                return Optional.empty();
            }
            Bean<?> bean = beanManager.resolve(beans);
            // Through an injection point: a producer that reads the point it serves gets one (Payara's does).
            return Optional.ofNullable(beanManager.getInjectableReference(new LookupPoint(type),
                    beanManager.createCreationalContext(bean)));
        } catch (RuntimeException ambiguousOrBroken) {
            return Optional.empty();
        }
    }

    void stopRuntime(@Observes BeforeShutdown event) {
        lifecycle.close();
    }

    /** The application's guarded methods, from the end of bean discovery. */
    GuardedMethods guardedMethods() {
        return guarded;
    }

    /** The application's runtime, from the end of deployment until shutdown. */
    SluiceRuntime runtime() {
        AdapterLifecycle.Current<LimiterPolicies> c = lifecycle.current();
        if (c == null) {
            throw new SluiceException("Sluice is not running: the CDI container has not finished deploying or has shut down");
        }
        return c.runtime();
    }
}
