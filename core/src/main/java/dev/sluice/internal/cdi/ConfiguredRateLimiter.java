package dev.sluice.internal.cdi;

import dev.sluice.RateLimitDecision;
import dev.sluice.RateLimiter;
import dev.sluice.StoreUnavailableException;
import dev.sluice.internal.config.Bandwidth;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.limit.Admission;
import dev.sluice.internal.limit.RateLimitEngine.LimitCall;
import dev.sluice.internal.runtime.SluiceRuntime;

import java.lang.System.Logger.Level;
import java.util.List;
import java.util.function.Supplier;

/**
 * The programmatic {@link RateLimiter} of one configured policy, over the application's rate-limit engine.
 * A disabled policy admits everything without a store call. When the store cannot be asked (it failed, or the
 * application's circuit breaker skips it after repeated failures, in which case no call waits),
 * the policy's {@code on-redis-failure=allow} admits (an allowed decision with the policy's full limit) and
 * {@code deny} rethrows the {@link StoreUnavailableException}, so callers can tell "limited" (a denied
 * decision, HTTP 429) from "cannot decide" (HTTP 503), as the filters do. A policy in {@code mode=shadow}
 * is decided and charged as usual but every decision says allowed. {@code count} does not apply: the
 * caller is charged when it asks. The policy is read anew on every call, so a reload
 * ({@code sluice.config.refresh}, JMX {@code reload()}) applies at once. Thread-safe.
 */
final class ConfiguredRateLimiter implements RateLimiter {

    private static final System.Logger LOG = System.getLogger("dev.sluice");

    private final SluiceRuntime runtime;
    private final Supplier<PolicyConfig> current;

    /** @param current the policy as last (re)loaded: each call reads it once */
    ConfiguredRateLimiter(SluiceRuntime runtime, Supplier<PolicyConfig> current) {
        this.runtime = runtime;
        this.current = current;
    }

    @Override
    public String policy() {
        return current.get().name();
    }

    @Override
    public RateLimitDecision tryAcquire(String key) {
        PolicyConfig policy = current.get();
        return tryAcquire(policy, key, policy.cost());
    }

    @Override
    public RateLimitDecision tryAcquire(String key, long cost) {
        return tryAcquire(current.get(), key, cost);
    }

    @Override
    public void reset(String key) {
        runtime.resets().reset(policy(), key);
    }

    private RateLimitDecision tryAcquire(PolicyConfig policy, String key, long cost) {
        if (cost < 1) {
            throw new IllegalArgumentException("cost of policy '" + policy.name() + "' must be at least 1, was " + cost);
        }
        if (!policy.enabled()) {
            return unlimited(policy);
        }
        if (!policy.limitsRate()) {
            // reloaded into a concurrency-only policy: nothing a programmatic caller can be charged for
            return RateLimitDecision.of(policy.name(), true, Long.MAX_VALUE, Long.MAX_VALUE, 0, 0, 0);
        }
        Admission admission = runtime.rateLimits().admit(List.of(LimitCall.chargedNow(policy, key, cost)));
        return switch (admission.outcome()) {
            case ADMITTED -> allowed(admission.decisions().get(0));
            case REFUSED -> admission.deciding().get(0);
            case UNAVAILABLE_REFUSED -> throw admission.failure();
            case UNAVAILABLE_ADMITTED -> {
                LOG.log(Level.DEBUG, "Sluice: admitting (sluice.on-redis-failure=allow) as the store is unreachable",
                        admission.failure());
                yield unlimited(policy);
            }
        };
    }

    /**
     * The decision of an admitted call, which for a shadowed policy may be its would-be refusal (counted by the
     * engine): reported as allowed, without a wait.
     */
    private static RateLimitDecision allowed(RateLimitDecision d) {
        return d.allowed() ? d : RateLimitDecision.of(d.policy(), true, d.remaining(), d.limit(), d.windowSeconds(), 0,
                d.resetMillis());
    }

    private static RateLimitDecision unlimited(PolicyConfig policy) {
        Bandwidth first = policy.bandwidths().get(0);
        return RateLimitDecision.of(policy.name(), true, first.capacity(), first.capacity(), first.windowSeconds(), 0, 0);
    }
}
