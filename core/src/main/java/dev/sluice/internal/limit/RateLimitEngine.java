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
import dev.sluice.internal.redis.RedisFailures;

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
     * @param permitId for a {@link ChargeMode#concurrency() concurrency} call, the id the request's permits are
     *                 held under (the same for every concurrency policy of one request); else null
     */
    public record LimitCall(PolicyConfig policy, String rawKey, long cost, ChargeMode mode, String permitId) {

        public LimitCall {
            if (mode.concurrency() != (permitId != null) || (mode.concurrency() && !policy.limitsConcurrency())) {
                throw new IllegalArgumentException(mode + " for policy " + policy.name() + ", permit id " + permitId);
            }
        }

        /** Shows the key only as a log line may ({@link LoggedKeys}): a message must not carry an API key. */
        @Override
        public String toString() {
            return "LimitCall[policy=" + policy.name() + ", key=" + LoggedKeys.of(policy.key().type(), rawKey)
                    + ", cost=" + cost + ", mode=" + mode + ", permitId=" + permitId + "]";
        }

        /** A rate call in {@code mode}. */
        public LimitCall(PolicyConfig policy, String rawKey, long cost, ChargeMode mode) {
            this(policy, rawKey, cost, mode, null);
        }

        /** The concurrency call of {@code policy}, in {@code mode}, for the request's {@code permitId}. */
        public static LimitCall concurrency(PolicyConfig policy, String rawKey, ChargeMode mode, String permitId) {
            return new LimitCall(policy, rawKey, 1, mode, permitId);
        }

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
    private final java.util.function.Supplier<dev.sluice.internal.lease.Watchdog> watchdog;
    private final String nodeId = Long.toHexString(new java.security.SecureRandom().nextLong());
    private final java.util.concurrent.atomic.AtomicLong permits = new java.util.concurrent.atomic.AtomicLong();

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
        this(store, keyPrefix, metrics, breaker, denials, OwnWatchdog::get);
    }

    /**
     * @param watchdog renews the permits of requests in flight under concurrency limits; asked on the first
     *                 such permit
     */
    public RateLimitEngine(RateLimitStore store, String keyPrefix, SluiceMetrics metrics, CircuitBreaker breaker,
                           DenyCache denials, java.util.function.Supplier<dev.sluice.internal.lease.Watchdog> watchdog) {
        this(store, keyPrefix, metrics, breaker, denials, watchdog, new ShadowLog(System::nanoTime));
    }

    RateLimitEngine(RateLimitStore store, String keyPrefix, SluiceMetrics metrics, CircuitBreaker breaker,
                    DenyCache denials, ShadowLog shadowLog) {
        this(store, keyPrefix, metrics, breaker, denials, OwnWatchdog::get, shadowLog);
    }

    private RateLimitEngine(RateLimitStore store, String keyPrefix, SluiceMetrics metrics, CircuitBreaker breaker,
                            DenyCache denials, java.util.function.Supplier<dev.sluice.internal.lease.Watchdog> watchdog,
                            ShadowLog shadowLog) {
        this.watchdog = watchdog;
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
     * The Redis key of a concurrency limit's permit set for {@code rawKey}:
     * {@code <prefix>:cc:{<policy>:<material>}}, a sorted set of permit ids scored by lease expiry.
     */
    public String permitKey(String policy, String rawKey) {
        return keyPrefix + ":cc:{" + policy + ':' + KeyMaterial.of(rawKey) + '}';
    }

    /** A permit id unique to one request: this engine's random node id and a counter. */
    public String newPermitId() {
        return nodeId + ':' + Long.toHexString(permits.incrementAndGet());
    }

    /**
     * Keeps the permits a request took (the admitted concurrency calls of {@link #decide(List)}): renewed every
     * third of their lease until {@link HeldPermits#release()}.
     *
     * @param calls the request's concurrency calls that took a permit, all with the same permit id
     */
    public HeldPermits hold(List<LimitCall> calls) {
        return HeldPermits.hold(this, calls, watchdog);
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
            keys[i] = key(calls.get(i));
        }
        List<RateLimitDecision> refusedLocally = refusedLocally(calls, keys);
        if (refusedLocally != null) {
            return refusedLocally;
        }
        List<BucketRequest> requests = new ArrayList<>(calls.size());
        for (int i = 0; i < keys.length; i++) {
            LimitCall call = calls.get(i);
            if (call.mode().concurrency()) {
                requests.add(BucketRequest.permits(keys[i], call.mode(), new BucketRequest.Permit(
                        call.policy().concurrency(), call.policy().concurrencyLeaseMillis(), call.permitId())));
                continue;
            }
            List<BucketRequest.Limit> limits = new ArrayList<>(call.policy().bandwidths().size());
            for (Bandwidth bandwidth : call.policy().bandwidths()) {
                limits.add(new BucketRequest.Limit(bandwidth.intervalUnits(), bandwidth.unitsPerMicro(),
                        bandwidth.capacity()));
            }
            requests.add(new BucketRequest(keys[i], call.cost(), limits, call.mode()));
        }
        List<BucketOutcome> outcomes;
        try {
            outcomes = breaker.call("the rate-limit decision", () -> store.consume(requests));
        } catch (StoreUnavailableException e) {
            if (e.isSkipped()) {
                throw e; // nothing reached the store
            }
            for (LimitCall call : calls) {
                metrics.policy(call.policy().name()).redisError();
            }
            if (!RedisFailures.isPoolExhausted(e)) {
                // The call may have run in Redis. (One that never left the node took nothing; in a flood on an
                // exhausted pool, returns retried in the background would only hold up the permits' renewals.)
                returnLostPermits(calls, keys);
            }
            throw e;
        }
        List<RateLimitDecision> decisions = new ArrayList<>(calls.size());
        boolean admitted = true;
        for (int i = 0; i < calls.size(); i++) {
            boolean concurrency = calls.get(i).mode().concurrency();
            RateLimitDecision decision = concurrency ? toConcurrencyDecision(calls.get(i).policy(), outcomes.get(i))
                    : toDecision(calls.get(i).policy(), outcomes.get(i));
            boolean decides = calls.get(i).mode().decides();
            admitted &= decision.allowed() || !decides;
            decisions.add(decision);
            // A permit can come back any moment (a request elsewhere completes): such refusals are not remembered.
            if (!decision.allowed() && decides && !concurrency) {
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
            if (!call.mode().decides() || call.mode().concurrency()) {
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
     *   <li>a deciding policy ({@link ChargeMode#ENFORCE}, {@link ChargeMode#CHECK}, {@link ChargeMode#CONCURRENCY})
     *       that refused the request, {@code denied};</li>
     *   <li>a shadowed one ({@link ChargeMode#SHADOW}, {@link ChargeMode#SHADOW_CHECK},
     *       {@link ChargeMode#SHADOW_CONCURRENCY}) that would have refused it,
     *       {@code wouldDeny} (and the {@link ShadowLog} hears of it), never {@code denied};</li>
     *   <li>any of these that admitted it, {@code allowed}, but only when the whole request was admitted: a
     *       policy that would have admitted a request another policy refused counts neither (an enforced one
     *       charged nothing); a {@code CHECK} admission is counted although nothing was charged yet, the charge
     *       after the response counting on its own;</li>
     *   <li>a {@link ChargeMode#CHARGE} call (after a response whose status counts), {@code chargedAfterResponse}.</li>
     * </ul>
     * A policy with a rate and a concurrency limit makes two calls and counts once per request.
     */
    private void count(List<LimitCall> calls, List<RateLimitDecision> decisions, boolean admitted) {
        // A policy with a rate and a concurrency limit has two calls, and counts the request once: denied when
        // either refused it.
        java.util.Set<String> counted = new java.util.HashSet<>();
        for (int i = 0; i < calls.size(); i++) {
            LimitCall call = calls.get(i);
            String name = call.policy().name();
            PolicyMetrics counters = metrics.policy(name);
            boolean allowed = decisions.get(i).allowed();
            switch (call.mode()) {
                case CHARGE -> counters.chargedAfterResponse();
                case SHADOW, SHADOW_CHECK, SHADOW_CONCURRENCY -> {
                    if (!allowed && counted.add(name)) {
                        counters.wouldDeny();
                        shadowLog.wouldDeny(name, call.policy().key().type(), call.rawKey());
                    }
                }
                default -> {
                    if (!allowed && counted.add(name)) {
                        counters.denied();
                    }
                }
            }
        }
        for (int i = 0; admitted && i < calls.size(); i++) {
            LimitCall call = calls.get(i);
            if (call.mode() != ChargeMode.CHARGE && decisions.get(i).allowed() && counted.add(call.policy().name())) {
                metrics.policy(call.policy().name()).allowed();
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

    /**
     * A concurrency limit's decision. Its wait is capped at {@link #CONCURRENCY_RETRY_MILLIS}: a permit comes back
     * whenever a request in flight completes, which nobody can foresee; the earliest lease's end the store reports
     * bounds the wait only when a holder died.
     */
    private static RateLimitDecision toConcurrencyDecision(PolicyConfig policy, BucketOutcome outcome) {
        long wait = Math.min(ceilMillis(Math.max(0, outcome.waitMicros())), CONCURRENCY_RETRY_MILLIS);
        if (!outcome.allowed()) {
            wait = Math.max(1, wait);
        }
        return RateLimitDecision.ofConcurrency(policy.name(), outcome.allowed(), Math.max(0, outcome.remaining()),
                policy.concurrency(), wait, ceilMillis(outcome.resetMicros()));
    }

    /** The longest wait a concurrency limit's decision tells: {@code Retry-After: 1}. */
    static final long CONCURRENCY_RETRY_MILLIS = 1000;

    private String key(LimitCall call) {
        return call.mode().concurrency() ? permitKey(call.policy().name(), call.rawKey())
                : bucketKey(call.policy().name(), call.rawKey());
    }

    /**
     * After a decision that failed in the store: its script may have run and taken permits although the reply was
     * lost (or another hash slot's call failed after one slot took them), and the request holds none of them, so
     * they are returned in the background, owner-checked by the request's permit id.
     */
    private void returnLostPermits(List<LimitCall> calls, String[] keys) {
        List<String> permitKeys = new ArrayList<>(1);
        String permitId = null;
        long lease = 0;
        for (int i = 0; i < keys.length; i++) {
            LimitCall call = calls.get(i);
            if (call.mode().concurrency()) {
                permitKeys.add(keys[i]);
                permitId = call.permitId();
                lease = Math.max(lease, call.policy().concurrencyLeaseMillis());
            }
        }
        if (permitId != null) {
            String id = permitId;
            PermitReturns.inBackground(watchdog.get(), System::nanoTime, lease, () -> release(permitKeys, id),
                    "the return of " + permitKeys.size() + " permit(s) a failed decision may have taken");
        }
    }

    /** Returns permits in one store call, through the breaker (skipped while it is open). */
    int release(List<String> keys, String permitId) {
        return breaker.call("the return of permits of concurrency limits", () -> store.release(keys, permitId));
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
