package dev.sluice.internal.limit;

import dev.sluice.RateLimitDecision;
import dev.sluice.internal.config.Bandwidth;
import dev.sluice.internal.config.PolicyConfig;

import java.util.ArrayList;
import java.util.List;

/**
 * Turns "these policies, for these keys" into one store call and the store's outcomes into
 * {@link RateLimitDecision}s. Stateless apart from its store and key prefix; thread-safe.
 */
public final class RateLimitEngine {

    /**
     * One policy applied to one request.
     *
     * @param policy the policy
     * @param rawKey the key material as derived from the request (escaped here, never used verbatim)
     * @param cost   tokens to take, {@code >= 1}
     */
    public record LimitCall(PolicyConfig policy, String rawKey, long cost) {
    }

    private final RateLimitStore store;
    private final String keyPrefix;

    public RateLimitEngine(RateLimitStore store, String keyPrefix) {
        this.store = store;
        this.keyPrefix = keyPrefix;
    }

    /** The Redis key of a policy's bucket for {@code rawKey}: {@code <prefix>:rl:{<policy>:<material>}}. */
    public String bucketKey(String policy, String rawKey) {
        return keyPrefix + ":rl:{" + policy + ':' + KeyMaterial.of(rawKey) + '}';
    }

    /**
     * Decides every call in one atomic store operation (one Redis round trip, per hash slot in Cluster).
     * The request is admitted only when every returned decision is allowed; then all were charged.
     *
     * @throws StoreUnavailableException when the store cannot be reached
     */
    public List<RateLimitDecision> decide(List<LimitCall> calls) {
        if (calls.isEmpty()) {
            return List.of();
        }
        List<BucketRequest> requests = new ArrayList<>(calls.size());
        for (LimitCall call : calls) {
            List<BucketRequest.Limit> limits = new ArrayList<>(call.policy().bandwidths().size());
            for (Bandwidth bandwidth : call.policy().bandwidths()) {
                limits.add(new BucketRequest.Limit(bandwidth.intervalMicros(), bandwidth.capacity()));
            }
            requests.add(new BucketRequest(bucketKey(call.policy().name(), call.rawKey()), call.cost(), limits));
        }
        List<BucketOutcome> outcomes = store.consume(requests);
        List<RateLimitDecision> decisions = new ArrayList<>(calls.size());
        for (int i = 0; i < calls.size(); i++) {
            decisions.add(toDecision(calls.get(i).policy(), outcomes.get(i)));
        }
        return decisions;
    }

    /** Decides a single call. */
    public RateLimitDecision decide(PolicyConfig policy, String rawKey, long cost) {
        return decide(List.of(new LimitCall(policy, rawKey, cost))).get(0);
    }

    private static RateLimitDecision toDecision(PolicyConfig policy, BucketOutcome outcome) {
        Bandwidth tightest = policy.bandwidths().get(outcome.tightest());
        long wait = outcome.waitMicros();
        long retryMillis = wait < 0 ? RateLimitDecision.NEVER : ceilMillis(wait);
        if (!outcome.allowed() && retryMillis == 0) {
            retryMillis = 1;
        }
        return new RateLimitDecision(policy.name(), outcome.allowed(), Math.max(0, outcome.remaining()),
                tightest.tokens(), tightest.windowSeconds(), retryMillis, ceilMillis(outcome.resetMicros()));
    }

    private static long ceilMillis(long micros) {
        return -Math.floorDiv(-micros, 1000L);
    }

    public RateLimitStore store() {
        return store;
    }
}
