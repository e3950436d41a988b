package dev.sluice.bench;

import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.limit.RateLimitEngine;
import dev.sluice.internal.runtime.SluiceRuntime;

import java.time.Duration;
import java.util.Map;

/**
 * Sluice as the servlet filter and the JAX-RS feature use it: configuration read by
 * {@link SluiceConfigLoader} from the same keys a user writes, one {@link SluiceRuntime} (one pooled
 * connection to Redis), and one {@link RateLimitEngine} decision per request. The key goes through the
 * engine's key escaping on every call, as a request-derived key does in production.
 */
final class SluiceRateLimitClient implements RateLimitClient {

    static final String POLICY = "bench";

    private final SluiceRuntime runtime;
    private final RateLimitEngine engine;
    private final PolicyConfig policy;
    private final String[] keyNames;

    SluiceRateLimitClient(String redisUri, String[] keyNames, long tokens, Duration period) {
        this(SluiceConfigLoader.load(ConfigSources.of(settings(redisUri, tokens, period))), keyNames);
    }

    /** With {@code sluice.limit.bench.local-budget} and a bucket of {@code burst} tokens. */
    SluiceRateLimitClient(String redisUri, String[] keyNames, long tokens, Duration period, String localBudget,
                          long burst) {
        this(SluiceConfigLoader.load(ConfigSources.of(withBudget(settings(redisUri, tokens, period), localBudget,
                burst))), keyNames);
    }

    private SluiceRateLimitClient(SluiceConfig config, String[] keyNames) {
        runtime = SluiceRuntime.start(config);
        engine = runtime.rateLimits();
        policy = config.policy(POLICY).orElseThrow();
        this.keyNames = keyNames;
    }

    /** The configuration a user would write to get the benchmark's policy. */
    static Map<String, String> settings(String redisUri, long tokens, Duration period) {
        return Map.of(
                "sluice.redis.uri", redisUri,
                "sluice.redis.pool.max-total", String.valueOf(BenchEnv.POOL_SIZE),
                "sluice.limit." + POLICY + ".rate", tokens + "/" + period.toSeconds() + "s",
                "sluice.limit." + POLICY + ".key", "header:X-Client");
    }

    /** {@code settings} with the policy's local budget and burst. */
    static Map<String, String> withBudget(Map<String, String> settings, String localBudget, long burst) {
        Map<String, String> all = new java.util.HashMap<>(settings);
        all.put("sluice.limit." + POLICY + ".local-budget", localBudget);
        all.put("sluice.limit." + POLICY + ".burst", Long.toString(burst));
        return all;
    }

    @Override
    public boolean tryAcquire(int key) {
        return engine.decide(policy, keyNames[key], 1).allowed();
    }

    @Override
    public void close() {
        runtime.close();
    }
}
