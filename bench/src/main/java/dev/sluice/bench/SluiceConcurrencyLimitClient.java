package dev.sluice.bench;

import dev.sluice.RequestView;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.HeaderMode;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.http.RateLimitGate;
import dev.sluice.internal.http.Verdict;
import dev.sluice.internal.runtime.SluiceRuntime;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Sluice's concurrency limit on the path the servlet filter and the JAX-RS filter take: a policy configured
 * with the keys a user writes ({@code sluice.limit.bench.concurrency=N}, key {@code header:X-Client}), one
 * {@link RateLimitGate} decision per request (key derived from the request, permit taken, headers built), and,
 * when admitted, the verdict's after-response action run as the filter runs it when the response is complete
 * (the permit returned in one more Redis call).
 */
final class SluiceConcurrencyLimitClient implements ConcurrencyLimitClient {

    private static final String POLICY = "bench";

    private final SluiceRuntime runtime;
    private final RateLimitGate gate;
    private final List<RateLimitGate.Policy> policies;
    private final RequestView request = new Request();

    SluiceConcurrencyLimitClient(String redisUri, int permits) {
        SluiceConfig config = SluiceConfigLoader.load(ConfigSources.of(Map.of(
                "sluice.redis.uri", redisUri,
                "sluice.redis.pool.max-total", String.valueOf(BenchEnv.POOL_SIZE),
                "sluice.limit." + POLICY + ".concurrency", String.valueOf(permits),
                "sluice.limit." + POLICY + ".key", "header:X-Client")));
        runtime = SluiceRuntime.start(config);
        gate = RateLimitGate.of(runtime, HeaderMode.IETF);
        policies = List.of(RateLimitGate.Policy.of(config.policy(POLICY).orElseThrow(), false));
    }

    @Override
    public boolean request() {
        Verdict verdict = gate.decide(request, policies, null);
        if (!verdict.admitted()) {
            return false;
        }
        verdict.afterResponse().completed(200);
        return true;
    }

    @Override
    public void close() {
        runtime.close();
    }

    /** The one client's request as the filter would see it. */
    private static final class Request implements RequestView {
        private static final Optional<String> CLIENT = Optional.of(KEY);

        @Override
        public String method() {
            return "GET";
        }

        @Override
        public String path() {
            return "/reports";
        }

        @Override
        public Optional<String> header(String name) {
            return "X-Client".equalsIgnoreCase(name) ? CLIENT : Optional.empty();
        }

        @Override
        public Optional<String> queryParameter(String name) {
            return Optional.empty();
        }

        @Override
        public Optional<String> pathParameter(String name) {
            return Optional.empty();
        }

        @Override
        public Optional<String> principal() {
            return Optional.empty();
        }

        @Override
        public String clientAddress() {
            return "127.0.0.1";
        }

        @Override
        public <T> T unwrap(Class<T> type) {
            throw new IllegalArgumentException("a benchmark request wraps nothing");
        }
    }
}
