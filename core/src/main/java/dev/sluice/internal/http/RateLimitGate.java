package dev.sluice.internal.http;

import dev.sluice.RateLimitDecision;
import dev.sluice.RequestView;
import dev.sluice.StoreUnavailableException;
import dev.sluice.internal.config.FailureMode;
import dev.sluice.internal.config.HeaderMode;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.limit.RateLimitEngine;
import dev.sluice.internal.limit.RateLimitEngine.LimitCall;
import dev.sluice.internal.runtime.SluiceRuntime;

import java.util.ArrayList;
import java.util.List;

/**
 * The one per-request rate-limit decision, shared by the servlet filter and the JAX-RS filter: they turn
 * their request into a {@link RequestView}, hand it here with the policies that matched it, and translate
 * the {@link Verdict} back (status, headers, problem body, the policies to record as charged). Everything
 * between, which policies apply, their keys, the one store call, {@code on-redis-failure}, the headers and
 * the body, happens here once for both.
 *
 * <p>A policy is skipped when it is switched off, does not list the request's method, or was already
 * decided for this request (recorded in {@link ChargedPolicies}, by another filter instance or by the
 * servlet filter before JAX-RS). Every other candidate counts as decided, whatever the outcome; those with
 * a key are asked in one {@link RateLimitEngine#decide(List)} call (one Redis round trip, through the
 * application's circuit breaker). A {@code bean:} key resolver that returns nothing exempts the request
 * from that policy.
 *
 * <p>When the store cannot be asked (failure, or the breaker skips it), the request is refused with 503
 * and {@code Retry-After} if any of its policies says {@code on-redis-failure=deny}, else admitted without
 * headers.
 *
 * <p>Immutable and thread-safe.
 */
public final class RateLimitGate {

    /**
     * A policy as the HTTP adapters apply it: its configuration and how its key is derived from a request,
     * built once at deployment (a {@code bean:} key's resolver is looked up then).
     */
    public record Policy(PolicyConfig config, KeyResolution key) {

        /**
         * @param pathParametersKnown whether the adapter can supply path parameters (JAX-RS yes, servlet no)
         * @throws dev.sluice.SluiceConfigException when the key cannot be derived by this adapter
         */
        public static Policy of(PolicyConfig config, boolean pathParametersKnown) {
            return new Policy(config, KeyResolution.of(config, pathParametersKnown));
        }

        public String name() {
            return config.name();
        }
    }

    private final RateLimitEngine engine;
    private final HeaderMode headerMode;

    RateLimitGate(RateLimitEngine engine, HeaderMode headerMode) {
        this.engine = engine;
        this.headerMode = headerMode;
    }

    /**
     * A gate over the runtime's engine (and so its circuit breaker, shared with every other user of the
     * runtime).
     *
     * @param headerMode the informational headers to write ({@code sluice.headers} as the adapter read it)
     */
    public static RateLimitGate of(SluiceRuntime runtime, HeaderMode headerMode) {
        return new RateLimitGate(runtime.rateLimits(), headerMode);
    }

    /**
     * Decides one request.
     *
     * @param request    the request
     * @param candidates the policies whose paths (servlet) or annotations (JAX-RS) matched it
     * @param charged    the request's {@link ChargedPolicies#ATTRIBUTE} value, or null
     * @return the verdict; {@link Verdict#NOTHING_TO_CHECK} when no candidate applies
     */
    public Verdict decide(RequestView request, List<Policy> candidates, Object charged) {
        List<LimitCall> calls = new ArrayList<>(candidates.size());
        List<String> decided = new ArrayList<>(candidates.size());
        String method = request.method();
        for (Policy candidate : candidates) {
            PolicyConfig policy = candidate.config();
            if (!policy.enabled() || !policy.appliesTo(method) || ChargedPolicies.contains(charged, policy.name())) {
                continue;
            }
            decided.add(policy.name());
            String rawKey = candidate.key().rawKey(request);
            if (rawKey != null) {
                calls.add(new LimitCall(policy, rawKey, policy.cost()));
            }
        }
        if (decided.isEmpty()) {
            return Verdict.NOTHING_TO_CHECK;
        }
        return check(calls).recording(ChargedPolicies.with(charged, decided));
    }

    /** Decides the calls in one engine call, applying {@code on-redis-failure} when the store cannot be asked. */
    Verdict check(List<LimitCall> calls) {
        if (calls.isEmpty()) {
            return Verdict.NOTHING_TO_CHECK;
        }
        List<RateLimitDecision> decisions;
        try {
            decisions = engine.decide(calls);
        } catch (StoreUnavailableException e) {
            return unavailable(calls);
        }
        for (RateLimitDecision d : decisions) {
            if (!d.allowed()) {
                return new Verdict(Verdict.Outcome.DENIED, decisions, 0, headerMode);
            }
        }
        return new Verdict(Verdict.Outcome.ALLOWED, decisions, 0, headerMode);
    }

    private Verdict unavailable(List<LimitCall> calls) {
        for (LimitCall call : calls) {
            if (call.policy().onRedisFailure() == FailureMode.DENY) {
                long seconds = Math.max(1, RateLimitHeaders.ceilSeconds(engine.breaker().millisUntilProbe()));
                return new Verdict(Verdict.Outcome.UNAVAILABLE_DENIED, List.of(), seconds, headerMode);
            }
        }
        engine.admittedUnchecked(calls);
        return new Verdict(Verdict.Outcome.UNAVAILABLE_ALLOWED, List.of(), 0, headerMode);
    }

    /** Whether the breaker currently skips the store (for tests and health checks). */
    public boolean isBreakerOpen() {
        return engine.breaker().isOpen();
    }
}
