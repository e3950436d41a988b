package dev.sluice.internal.cdi;

import dev.sluice.DistributedLock;
import dev.sluice.DistributedSemaphore;
import dev.sluice.RateLimiter;
import dev.sluice.Sluice;
import dev.sluice.internal.config.ConfigProblems;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.runtime.SluiceRuntime;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@link Sluice} bean of a CDI application, over the runtime its {@link SluiceExtension} started.
 *
 * <p>Application-scoped and thread-safe.
 */
@ApplicationScoped
public class DefaultSluice implements Sluice {

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
            PolicyConfig config = runtime.config().policy(name).orElseThrow(() -> ConfigProblems.absent(
                    "sluice.limit." + name + ".rate", ", so no rate-limit policy named \"" + name + "\" is configured",
                    "a rate <tokens>/<duration> such as 100/1m"));
            if (!config.limitsRate()) {
                // a concurrency limit holds a permit until a response completes: only the HTTP filters know when
                throw ConfigProblems.absent("sluice.limit." + name + ".rate", ", and policy \"" + name + "\" only"
                        + " limits requests in flight (concurrency), which applies to HTTP requests, not to a limiter",
                        "a rate <tokens>/<duration> such as 100/1m for Sluice.limiter(\"" + name + "\")");
            }
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
}
