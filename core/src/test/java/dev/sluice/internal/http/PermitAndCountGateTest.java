package dev.sluice.internal.http;

import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.HeaderMode;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.runtime.SluiceRuntime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A request under a concurrency limit and a policy that counts only some statuses: its completion both returns
 * the permit and charges the counting policy.
 */
class PermitAndCountGateTest {

    private final SluiceRuntime runtime = SluiceRuntime.start(SluiceConfigLoader.load(ConfigSources.of(Map.of(
            "sluice.limit.reports.concurrency", "1", "sluice.limit.reports.paths", "/reports",
            "sluice.limit.failures.rate", "5/1m", "sluice.limit.failures.count", "5xx",
            "sluice.limit.failures.paths", "/reports"))));
    private final RateLimitGate gate = RateLimitGate.of(runtime, HeaderMode.IETF);
    private final List<RateLimitGate.Policy> policies = List.of(
            RateLimitGate.Policy.of(runtime.config().policy("reports").orElseThrow(), false),
            RateLimitGate.Policy.of(runtime.config().policy("failures").orElseThrow(), false));

    @AfterEach
    void stop() {
        runtime.close();
    }

    private Verdict request() {
        return gate.decide(TestRequest.get("/reports"), policies, null);
    }

    @Test
    void completingTheResponseReturnsThePermitAndChargesTheCountingPolicy() {
        Verdict first = request();
        assertThat(first.admitted()).isTrue();
        assertThat(request().status()).as("the permit is held").isEqualTo(429);

        first.afterResponse().completed(500);

        Verdict second = request();
        assertThat(second.admitted()).as("the permit came back").isTrue();
        assertThat(runtime.metrics().policy("failures").chargedAfterResponseCount()).isEqualTo(1);
        second.afterResponse().completed(200);
        assertThat(runtime.metrics().policy("failures").chargedAfterResponseCount())
                .as("a 200 does not count").isEqualTo(1);
    }
}
