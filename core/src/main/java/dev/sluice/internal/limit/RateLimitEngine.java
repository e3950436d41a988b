package dev.sluice.internal.limit;

import dev.sluice.internal.redis.KeyMaterial;
import dev.sluice.StoreUnavailableException;
import dev.sluice.RateLimitDecision;
import dev.sluice.internal.config.Bandwidth;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.RedisSettings;
import dev.sluice.internal.metrics.PolicyMetrics;
import dev.sluice.internal.metrics.SluiceMetrics;
import dev.sluice.internal.redis.CircuitBreaker;

import java.util.ArrayList;
import java.util.List;

/**
 * Turns "these policies, for these keys" into one store call and the store's outcomes into
 * {@link RateLimitDecision}s, counting per policy what it decided in the application's
 * {@link SluiceMetrics}: every rate-limit decision of an application passes here, from the filters and from
 * the programmatic limiter alike, and so through the application's {@link CircuitBreaker}. Stateless apart
 * from its store, key prefix, breaker and counters; thread-safe.
 */
public final class RateLimitEngine {

    /**
     * One policy applied to one request.
     *
     * @param policy the policy
     * @param rawKey the key material as derived from the request (escaped here, never used verbatim)
     * @param cost   tokens to take, {@code >= 1}
     * @param mode   how the policy takes part in the decision
     */
    public record LimitCall(PolicyConfig policy, String rawKey, long cost, ChargeMode mode) {

        /** An {@link ChargeMode#ENFORCE enforced} call. */
        public LimitCall(PolicyConfig policy, String rawKey, long cost) {
            this(policy, rawKey, cost, ChargeMode.ENFORCE);
        }
    }

    private final RateLimitStore store;
    private final String keyPrefix;
    private final SluiceMetrics metrics;
    private final CircuitBreaker breaker;
    private final DenyCache denials;
    private final ShadowLog shadowLog;

    /** An engine with a breaker of its own and no deny cache, whose counts are published nowhere (tests, benchmarks). */
    public RateLimitEngine(RateLimitStore store, String keyPrefix) {
        this(store, keyPrefix, SluiceMetrics.unpublished(RedisSettings.none()),
                new CircuitBreaker(CircuitBreaker.DEFAULT_THRESHOLD, CircuitBreaker.DEFAULT_COOL_DOWN,
                        System::nanoTime, "the rate-limit store"), new DenyCache(0, System::nanoTime));
    }

    /**
     * @param breaker the application's breaker, shared with its locks and semaphores
     * @param denials the node's memory of refused buckets
     */
    public RateLimitEngine(RateLimitStore store, String keyPrefix, SluiceMetrics metrics, CircuitBreaker breaker,
                           DenyCache denials) {
        this(store, keyPrefix, metrics, breaker, denials, new ShadowLog(System::nanoTime));
    }

    RateLimitEngine(RateLimitStore store, String keyPrefix, SluiceMetrics metrics, CircuitBreaker breaker,
                    DenyCache denials, ShadowLog shadowLog) {
        this.store = store;
        this.keyPrefix = keyPrefix;
        this.metrics = metrics;
        this.breaker = breaker;
        this.denials = denials;
        this.shadowLog = shadowLog;
    }

    /** The Redis key of a policy's bucket for {@code rawKey}: {@code <prefix>:rl:{<policy>:<material>}}. */
    public String bucketKey(String policy, String rawKey) {
        return keyPrefix + ":rl:{" + policy + ':' + KeyMaterial.of(rawKey) + '}';
    }

    /**
     * Decides every call in one atomic store operation (one Redis round trip, per hash slot in Cluster).
     * The request is admitted only when every decision of a {@link ChargeMode#decides() deciding} call is
     * allowed; then those were charged. Each other call is charged as its {@link ChargeMode} says. While
     * the breaker is open the store is not asked and the call fails at once.
     *
     * <p>When a bucket of the request is still refused by an earlier answer ({@link DenyCache}), the store is
     * not asked either: the request is refused, nothing is charged, and only the refusing decisions are
     * returned (their wait counted down).
     *
     * @return one decision per call, in order; or, for a request refused locally, its refusing decisions
     * @throws StoreUnavailableException when the store cannot be reached, or the breaker skips it
     */
    public List<RateLimitDecision> decide(List<LimitCall> calls) {
        if (calls.isEmpty()) {
            return List.of();
        }
        String[] keys = new String[calls.size()];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = bucketKey(calls.get(i).policy().name(), calls.get(i).rawKey());
        }
        List<RateLimitDecision> refusedLocally = refusedLocally(calls, keys);
        if (refusedLocally != null) {
            return refusedLocally;
        }
        long ticket = breaker.enter();
        if (ticket == CircuitBreaker.REFUSED) {
            throw StoreUnavailableException.skipped(breaker.millisUntilProbe());
        }
        List<BucketRequest> requests = new ArrayList<>(calls.size());
        for (int i = 0; i < keys.length; i++) {
            LimitCall call = calls.get(i);
            List<BucketRequest.Limit> limits = new ArrayList<>(call.policy().bandwidths().size());
            for (Bandwidth bandwidth : call.policy().bandwidths()) {
                limits.add(new BucketRequest.Limit(bandwidth.intervalUnits(), bandwidth.unitsPerMicro(),
                        bandwidth.capacity()));
            }
            requests.add(new BucketRequest(keys[i], call.cost(), limits, call.mode()));
        }
        List<BucketOutcome> outcomes;
        try {
            outcomes = store.consume(requests);
        } catch (StoreUnavailableException e) {
            breaker.onFailure(ticket, e);
            metrics.redis().breaker(breaker.isOpen());
            for (LimitCall call : calls) {
                metrics.policy(call.policy().name()).redisError();
            }
            metrics.redis().failed(e);
            throw e;
        } catch (RuntimeException | Error e) {
            // the store answered, even if with something unexpected: it is reachable
            breaker.onSuccess(ticket);
            metrics.redis().breaker(breaker.isOpen());
            throw e;
        }
        breaker.onSuccess(ticket);
        metrics.redis().breaker(breaker.isOpen());
        metrics.redis().answered();
        List<RateLimitDecision> decisions = new ArrayList<>(calls.size());
        boolean admitted = true;
        for (int i = 0; i < calls.size(); i++) {
            RateLimitDecision decision = toDecision(calls.get(i).policy(), outcomes.get(i));
            boolean decides = calls.get(i).mode().decides();
            admitted &= decision.allowed() || !decides;
            decisions.add(decision);
            if (!decision.allowed() && decides) {
                denials.remember(keys[i], calls.get(i).policy().bandwidths(), calls.get(i).cost(), decision);
            }
        }
        count(calls, decisions, admitted);
        return decisions;
    }

    private List<RateLimitDecision> refusedLocally(List<LimitCall> calls, String[] keys) {
        List<RateLimitDecision> refusals = null;
        for (int i = 0; i < keys.length; i++) {
            LimitCall call = calls.get(i);
            if (!call.mode().decides()) {
                continue;
            }
            RateLimitDecision refusal = denials.refusal(keys[i], call.policy().bandwidths(), call.cost());
            if (refusal != null) {
                if (refusals == null) {
                    refusals = new ArrayList<>(1);
                }
                refusals.add(refusal);
                metrics.policy(call.policy().name()).deniedLocally();
            }
        }
        return refusals;
    }

    /**
     * What each policy of a decided request counts (the meanings users read are in {@code docs/observability.md}):
     * <ul>
     *   <li>a deciding policy ({@link ChargeMode#ENFORCE}, {@link ChargeMode#CHECK}) that refused the request,
     *       {@code denied};</li>
     *   <li>a shadowed one ({@link ChargeMode#SHADOW}, {@link ChargeMode#SHADOW_CHECK}) that would have refused it,
     *       {@code wouldDeny} (and the {@link ShadowLog} hears of it), never {@code denied};</li>
     *   <li>any of these that admitted it, {@code allowed}, but only when the whole request was admitted: a
     *       policy that would have admitted a request another policy refused counts neither (an enforced one
     *       charged nothing); a {@code CHECK} admission is counted although nothing was charged yet, the charge
     *       after the response counting on its own;</li>
     *   <li>a {@link ChargeMode#CHARGE} call (after a response whose status counts), {@code chargedAfterResponse}.</li>
     * </ul>
     */
    private void count(List<LimitCall> calls, List<RateLimitDecision> decisions, boolean admitted) {
        for (int i = 0; i < calls.size(); i++) {
            LimitCall call = calls.get(i);
            PolicyMetrics counters = metrics.policy(call.policy().name());
            boolean allowed = decisions.get(i).allowed();
            switch (call.mode()) {
                case CHARGE -> counters.chargedAfterResponse();
                case SHADOW, SHADOW_CHECK -> {
                    if (!allowed) {
                        counters.wouldDeny();
                        shadowLog.wouldDeny(call.policy().name(), call.rawKey());
                    } else if (admitted) {
                        counters.allowed();
                    }
                }
                case ENFORCE, CHECK -> {
                    if (!allowed) {
                        counters.denied();
                    } else if (admitted) {
                        counters.allowed();
                    }
                }
            }
        }
    }

    /**
     * Counts a request admitted without asking the store, because it was unreachable or the circuit breaker
     * skips it and {@code sluice.on-redis-failure=allow}: one fail-open pass for each call's policy. The
     * rate-limit gate calls this; so does the programmatic limiter.
     */
    public void admittedUnchecked(List<LimitCall> calls) {
        for (LimitCall call : calls) {
            metrics.policy(call.policy().name()).failedOpen();
        }
    }

    /** {@link #admittedUnchecked(List)} for one policy. */
    public void admittedUnchecked(PolicyConfig policy) {
        metrics.policy(policy.name()).failedOpen();
    }

    /** Decides a single call. */
    public RateLimitDecision decide(PolicyConfig policy, String rawKey, long cost) {
        return decide(List.of(new LimitCall(policy, rawKey, cost))).get(0);
    }

    /**
     * The decision shows the tightest bandwidth as a bucket: {@code limit} is its capacity (the burst of the first
     * bandwidth) and {@code windowSeconds} the time it takes to refill from empty, so that {@code remaining}
     * never exceeds {@code limit}. Without a burst these are the bandwidth's token count and period.
     */
    private static RateLimitDecision toDecision(PolicyConfig policy, BucketOutcome outcome) {
        Bandwidth tightest = policy.bandwidths().get(outcome.tightest());
        long wait = outcome.waitMicros();
        long retryMillis = wait < 0 ? RateLimitDecision.NEVER : ceilMillis(wait);
        if (!outcome.allowed() && retryMillis == 0) {
            retryMillis = 1;
        }
        return RateLimitDecision.of(policy.name(), outcome.allowed(), Math.max(0, outcome.remaining()),
                tightest.capacity(), tightest.windowSeconds(), retryMillis, ceilMillis(outcome.resetMicros()));
    }

    private static long ceilMillis(long micros) {
        return -Math.floorDiv(-micros, 1000L);
    }

    public RateLimitStore store() {
        return store;
    }

    /** The application's metrics. */
    public SluiceMetrics metrics() {
        return metrics;
    }

    /** The node's memory of refused buckets. */
    public DenyCache denials() {
        return denials;
    }

    /** The breaker every call of this engine goes through. */
    public CircuitBreaker breaker() {
        return breaker;
    }
}
