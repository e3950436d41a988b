package dev.sluice.internal.limit;

import dev.sluice.internal.redis.KeyMaterial;
import dev.sluice.StoreUnavailableException;
import dev.sluice.RateLimitDecision;
import dev.sluice.internal.config.Bandwidth;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.RedisSettings;
import dev.sluice.internal.metrics.SluiceMetrics;

import java.util.ArrayList;
import java.util.List;

/**
 * Turns "these policies, for these keys" into one store call and the store's outcomes into
 * {@link RateLimitDecision}s, counting per policy what it decided in the application's
 * {@link SluiceMetrics}: every rate-limit decision of an application passes here. Stateless apart from its
 * store, key prefix and counters; thread-safe.
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
    private final SluiceMetrics metrics;

    /** An engine whose counts are published nowhere (tests, benchmarks). */
    public RateLimitEngine(RateLimitStore store, String keyPrefix) {
        this(store, keyPrefix, SluiceMetrics.unpublished(RedisSettings.none()));
    }

    public RateLimitEngine(RateLimitStore store, String keyPrefix, SluiceMetrics metrics) {
        this.store = store;
        this.keyPrefix = keyPrefix;
        this.metrics = metrics;
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
                limits.add(new BucketRequest.Limit(bandwidth.intervalUnits(), bandwidth.unitsPerMicro(),
                        bandwidth.capacity()));
            }
            requests.add(new BucketRequest(bucketKey(call.policy().name(), call.rawKey()), call.cost(), limits));
        }
        List<BucketOutcome> outcomes;
        try {
            outcomes = store.consume(requests);
        } catch (StoreUnavailableException e) {
            for (LimitCall call : calls) {
                metrics.policy(call.policy().name()).redisError();
            }
            metrics.redis().failed(e);
            throw e;
        }
        metrics.redis().answered();
        List<RateLimitDecision> decisions = new ArrayList<>(calls.size());
        boolean admitted = true;
        for (int i = 0; i < calls.size(); i++) {
            RateLimitDecision decision = toDecision(calls.get(i).policy(), outcomes.get(i));
            admitted &= decision.allowed();
            decisions.add(decision);
        }
        count(calls, decisions, admitted);
        return decisions;
    }

    /**
     * A policy counts a request as allowed only when the whole request was admitted (and so charged), and as
     * denied when it refused it itself; a policy that would have admitted a request another policy refused
     * counts neither, as it charged nothing.
     */
    private void count(List<LimitCall> calls, List<RateLimitDecision> decisions, boolean admitted) {
        for (int i = 0; i < calls.size(); i++) {
            if (!decisions.get(i).allowed()) {
                metrics.policy(calls.get(i).policy().name()).denied();
            } else if (admitted) {
                metrics.policy(calls.get(i).policy().name()).allowed();
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
        return new RateLimitDecision(policy.name(), outcome.allowed(), Math.max(0, outcome.remaining()),
                tightest.capacity(), tightest.windowSeconds(), retryMillis, ceilMillis(outcome.resetMicros()));
    }

    private static long ceilMillis(long micros) {
        return -Math.floorDiv(-micros, 1000L);
    }

    public RateLimitStore store() {
        return store;
    }

    /** The application's metrics, where the gate also reports its breaker's state. */
    public SluiceMetrics metrics() {
        return metrics;
    }
}
