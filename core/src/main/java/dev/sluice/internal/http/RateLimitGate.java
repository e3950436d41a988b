package dev.sluice.internal.http;

import dev.sluice.RateLimitDecision;
import dev.sluice.RequestView;
import dev.sluice.StoreUnavailableException;
import dev.sluice.internal.config.Cidr;
import dev.sluice.internal.config.Exemptions;
import dev.sluice.internal.config.HeaderMode;
import dev.sluice.internal.config.HttpMethods;
import dev.sluice.internal.config.IpLiteral;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.limit.Admission;
import dev.sluice.internal.limit.ChargeMode;
import dev.sluice.internal.limit.HeldPermits;
import dev.sluice.internal.limit.RateLimitEngine;
import dev.sluice.internal.limit.RateLimitEngine.LimitCall;
import dev.sluice.internal.runtime.SluiceRuntime;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.IntConsumer;

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
 * from that policy, and so does a client listed in the policy's {@code exempt}: such a
 * policy is recorded as decided (so that no later filter charges it) but neither asked nor charged, and gives
 * the response no headers.
 *
 * <p>How each policy takes part ({@link ChargeMode}): an enforced policy that counts every request decides
 * and is charged before the request; one with {@code count=<statuses>} is checked before the request (refused
 * when no token is left, nothing taken) and charged after the response when its status counts, through the
 * verdict's {@link AfterResponse}; a shadowed policy ({@code mode=shadow}) is decided and charged the same
 * way but never refuses the request, and neither its headers nor its failure mode reach the response.
 *
 * <p>A concurrency limit ({@code sluice.limit.<policy>.concurrency}) takes part in the same store call: the
 * request is refused when its key has no free permit, and an admitted request holds one (renewed by the
 * watchdog) until the adapter reports its response complete through the verdict's {@link AfterResponse}, which
 * returns the permits of all the request's concurrency limits in one more store call. A shadowed one never
 * refuses and holds a permit only when one was free.
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
     * {@code method} as policies compare it: ASCII letters upper-cased, so that {@code post} is {@code POST}
     * (what every adapter's {@link RequestView#method()} answers).
     */
    public static String requestMethod(String method) {
        return HttpMethods.upperCase(method);
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
        String permitId = null;
        for (Policy candidate : candidates) {
            PolicyConfig policy = candidate.config();
            if (!policy.enabled() || !policy.appliesTo(method) || ChargedPolicies.contains(charged, policy.name())) {
                continue;
            }
            decided.add(policy.name());
            if (isExempt(policy.exempt(), request)) {
                engine.exempted(policy);
                continue;
            }
            String rawKey = candidate.key().rawKey(request);
            if (rawKey != null && policy.limitsRate()) {
                calls.add(LimitCall.beforeRequest(policy, rawKey));
            }
            if (rawKey != null && policy.limitsConcurrency()) {
                permitId = permitId == null ? engine.newPermitId() : permitId;
                calls.add(LimitCall.concurrency(policy, rawKey, permitId));
            }
        }
        if (decided.isEmpty()) {
            return Verdict.NOTHING_TO_CHECK;
        }
        Verdict verdict = check(calls);
        IntConsumer charge = chargeAfterResponse(calls);
        AfterResponse after = verdict.afterResponse();
        if (charge != null) {
            after = after.isEmpty() ? AfterResponse.of(charge) : after.and(charge);
        }
        return verdict.after(after).recording(ChargedPolicies.with(charged, decided));
    }

    /**
     * Whether the request's client is exempt from a policy: its principal, one of its roles (as the container
     * knows them now) or its full address (after trusted proxies; an IPv6 client is not reduced to its network
     * here) is listed. Costs nothing for a policy without exemptions.
     */
    static boolean isExempt(Exemptions exempt, RequestView request) {
        if (exempt.isEmpty()) {
            return false;
        }
        if (!exempt.principals().isEmpty()) {
            Optional<String> principal = request.principal();
            if (principal.isPresent() && exempt.principals().contains(principal.get())) {
                return true;
            }
        }
        for (String role : exempt.roles()) {
            if (request.isUserInRole(role)) {
                return true;
            }
        }
        if (!exempt.networks().isEmpty()) {
            byte[] address = IpLiteral.parse(request.clientIp());
            if (address != null) {
                for (Cidr network : exempt.networks()) {
                    if (network.contains(address)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /**
     * The charge after the response of the policies that count only some statuses: one more store call, made
     * only when the status counts for at least one of them. When the store cannot be asked then, the charge is
     * lost (counted as a Redis error of the policy); the request already had its answer.
     */
    private IntConsumer chargeAfterResponse(List<LimitCall> calls) {
        List<LimitCall> counted = null;
        for (LimitCall call : calls) {
            if (!call.mode().concurrency() && !call.policy().count().all()) {
                if (counted == null) {
                    counted = new ArrayList<>(1);
                }
                counted.add(new LimitCall(call.policy(), call.rawKey(), call.cost(), ChargeMode.CHARGE));
            }
        }
        if (counted == null) {
            return null;
        }
        List<LimitCall> charges = List.copyOf(counted);
        return status -> {
            List<LimitCall> due = new ArrayList<>(charges.size());
            for (LimitCall charge : charges) {
                if (charge.policy().count().counts(status)) {
                    due.add(charge);
                }
            }
            if (!due.isEmpty()) {
                try {
                    engine.decide(due);
                } catch (StoreUnavailableException e) {
                    // counted by the engine; the response is already on its way
                }
            }
        };
    }

    /**
     * The permits an admitted request took, held (renewed) until its response completes: those of its enforced
     * concurrency limits, and of its shadowed ones that found a permit free. Nothing when none was taken.
     */
    private AfterResponse holdPermits(List<LimitCall> calls, List<RateLimitDecision> decisions) {
        List<LimitCall> taken = null;
        for (int i = 0; i < calls.size(); i++) {
            LimitCall call = calls.get(i);
            if (call.mode() == ChargeMode.CONCURRENCY
                    || (call.mode() == ChargeMode.SHADOW_CONCURRENCY && decisions.get(i).allowed())) {
                if (taken == null) {
                    taken = new ArrayList<>(1);
                }
                taken.add(call);
            }
        }
        if (taken == null) {
            return AfterResponse.NONE;
        }
        HeldPermits held = engine.hold(taken);
        return AfterResponse.of(status -> held.release());
    }

    /**
     * Decides the calls in one engine call, by the rule every entry point shares ({@link RateLimitEngine#admit}),
     * and says it the HTTP way.
     */
    Verdict check(List<LimitCall> calls) {
        if (calls.isEmpty()) {
            return Verdict.NOTHING_TO_CHECK;
        }
        Admission admission = engine.admit(calls);
        return switch (admission.outcome()) {
            case ADMITTED -> new Verdict(Verdict.Outcome.ALLOWED, admission.deciding(), 0, headerMode)
                    .after(holdPermits(calls, admission.decisions()));
            case REFUSED -> new Verdict(Verdict.Outcome.DENIED, admission.deciding(), 0, headerMode);
            case UNAVAILABLE_ADMITTED -> new Verdict(Verdict.Outcome.UNAVAILABLE_ALLOWED, List.of(), 0, headerMode);
            case UNAVAILABLE_REFUSED -> new Verdict(Verdict.Outcome.UNAVAILABLE_DENIED, List.of(),
                    Math.max(1, RateLimitHeaders.ceilSeconds(engine.breaker().millisUntilProbe())), headerMode);
        };
    }

    /** Whether the breaker currently skips the store (for tests and health checks). */
    public boolean isBreakerOpen() {
        return engine.breaker().isOpen();
    }
}
