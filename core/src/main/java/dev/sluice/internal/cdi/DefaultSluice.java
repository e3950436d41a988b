package dev.sluice.internal.cdi;

import dev.sluice.DistributedLock;
import dev.sluice.DistributedSemaphore;
import dev.sluice.RateLimiter;
import dev.sluice.Sluice;
import dev.sluice.SluiceConfigException;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.runtime.SluiceRuntime;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@link Sluice} bean of a CDI application, over the runtime its {@link SluiceExtension} started. Also
 * the cache of the interceptors' per-method policies, each built once (annotation plus
 * {@code sluice.lock.<name>.*} / {@code sluice.semaphore.<name>.*}, read once) at the method's first call.
 *
 * <p>Application-scoped and thread-safe.
 */
@ApplicationScoped
public class DefaultSluice implements Sluice {

    private record MethodKey(Class<?> runtimeClass, Method method) {
    }

    private final Map<MethodKey, GuardedMethods.LockSpec> lockPolicies = new ConcurrentHashMap<>();
    private final Map<MethodKey, GuardedMethods.BoundSpec> boundPolicies = new ConcurrentHashMap<>();
    private final Map<String, RateLimiter> limiters = new ConcurrentHashMap<>();

    @Inject
    SluiceExtension extension;

    private SluiceRuntime runtime() {
        return extension.runtime();
    }

    @Override
    public RateLimiter limiter(String policy) {
        SluiceRuntime runtime = runtime();
        return limiters.computeIfAbsent(policy, name -> {
            PolicyConfig config = runtime.config().policy(name).orElseThrow(() -> new SluiceConfigException(
                    "sluice.limit." + name + ".rate", "sluice.limit." + name + ".rate: no rate-limit policy named '"
                    + name + "' is configured; define sluice.limit." + name + ".rate such as 100/1m"));
            return new ConfiguredRateLimiter(runtime, config);
        });
    }

    @Override
    public DistributedLock lock(String key) {
        return runtime().locks().lock(key);
    }

    /** A lock on {@code key} counted in metrics under the {@code @Locked} method's lock name. */
    DistributedLock lock(String key, String name) {
        return runtime().locks().lock(key, name);
    }

    @Override
    public DistributedSemaphore semaphore(String name, int permits) {
        SluiceRuntime runtime = runtime();
        return runtime.locks().semaphore(name, runtime.config().semaphore(name).permits().orElse(permits));
    }

    GuardedMethods.LockSpec lockPolicy(Class<?> runtimeClass, Method method) {
        return lockPolicies.computeIfAbsent(new MethodKey(runtimeClass, method), k -> {
            Class<?> beanClass = GuardedMethods.unproxied(runtimeClass);
            GuardedMethods.LockSpec spec = GuardedMethods.lockSpec(beanClass, method,
                    GuardedMethods.locked(beanClass, method));
            return spec.with(runtime().config().lock(spec.name()));
        });
    }

    GuardedMethods.BoundSpec boundPolicy(Class<?> runtimeClass, Method method) {
        return boundPolicies.computeIfAbsent(new MethodKey(runtimeClass, method), k -> {
            Class<?> beanClass = GuardedMethods.unproxied(runtimeClass);
            GuardedMethods.BoundSpec spec = GuardedMethods.boundSpec(beanClass, method,
                    GuardedMethods.bounded(beanClass, method));
            return spec.with(runtime().config().semaphore(spec.name()));
        });
    }
}
