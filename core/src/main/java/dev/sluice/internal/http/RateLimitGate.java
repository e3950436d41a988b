package dev.sluice.internal.http;

import dev.sluice.RateLimitDecision;
import dev.sluice.internal.config.FailureMode;
import dev.sluice.internal.limit.RateLimitEngine;
import dev.sluice.internal.limit.RateLimitEngine.LimitCall;
import dev.sluice.StoreUnavailableException;
import dev.sluice.internal.redis.CircuitBreaker;
import dev.sluice.internal.runtime.SluiceRuntime;

import java.util.List;

/**
 * The one place where the filters ask the rate-limit engine, adding what HTTP needs around it:
 * {@code sluice.on-redis-failure} and a circuit breaker. All calls of a request go to the engine in one
 * {@link RateLimitEngine#decide(List)} (one Redis round trip).
 *
 * <p>When the store fails, or while the breaker is open after {@value CircuitBreaker#DEFAULT_THRESHOLD}
 * consecutive failures (for one second at a time, then one probe), requests are admitted without headers
 * ({@code allow}, the default) or answered 503 with {@code Retry-After} ({@code deny}). The breaker
 * belongs to the runtime, so the servlet and JAX-RS filters of one application share it.
 *
 * <p>Thread-safe.
 */
public final class RateLimitGate {

    private final RateLimitEngine engine;
    private final FailureMode failureMode;
    private final CircuitBreaker breaker;

    RateLimitGate(RateLimitEngine engine, FailureMode failureMode, CircuitBreaker breaker) {
        this.engine = engine;
        this.failureMode = failureMode;
        this.breaker = breaker;
    }

    /**
     * A gate over the runtime's engine, sharing the runtime's breaker with every other gate on it.
     *
     * @param failureMode what to do while the store is unreachable (the filter's own setting, which may
     *                    differ from the runtime's configuration)
     */
    public static RateLimitGate of(SluiceRuntime runtime, FailureMode failureMode) {
        return new RateLimitGate(runtime.rateLimits(), failureMode, runtime.breaker());
    }

    /**
     * Decides every call in one engine call, or applies the failure mode without touching the store while
     * the breaker is open. No calls: admitted, and the store is not touched.
     */
    public Verdict check(List<LimitCall> calls) {
        if (calls.isEmpty()) {
            return Verdict.NOTHING_TO_CHECK;
        }
        if (!breaker.tryAcquire()) {
            return unavailable(calls);
        }
        List<RateLimitDecision> decisions;
        try {
            decisions = engine.decide(calls);
        } catch (StoreUnavailableException e) {
            breaker.onFailure(e);
            reportBreaker();
            return unavailable(calls);
        } catch (RuntimeException | Error e) {
            // the store answered, even if with something unexpected: it is reachable
            breaker.onSuccess();
            reportBreaker();
            throw e;
        }
        breaker.onSuccess();
        reportBreaker();
        for (RateLimitDecision d : decisions) {
            if (!d.allowed()) {
                return new Verdict(Verdict.Outcome.DENIED, decisions, 0);
            }
        }
        return new Verdict(Verdict.Outcome.ALLOWED, decisions, 0);
    }

    /** The breaker's state as a metric (the breaker logs its own changes). */
    private void reportBreaker() {
        engine.metrics().redis().breaker(breaker.isOpen());
    }

    private Verdict unavailable(List<LimitCall> calls) {
        if (failureMode == FailureMode.ALLOW) {
            engine.admittedUnchecked(calls);
            return new Verdict(Verdict.Outcome.UNAVAILABLE_ALLOWED, List.of(), 0);
        }
        long seconds = Math.max(1, RateLimitHeaders.ceilSeconds(breaker.millisUntilProbe()));
        return new Verdict(Verdict.Outcome.UNAVAILABLE_DENIED, List.of(), seconds);
    }

    /** Whether the breaker currently skips the store (for tests and health checks). */
    public boolean isBreakerOpen() {
        return breaker.isOpen();
    }
}
