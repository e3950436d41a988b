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
 * A shadowed concurrency limit without Redis: it never refuses, holds a permit for a request that found one
 * free until that request's response completes, and holds none for a request it would have refused.
 */
class ShadowConcurrencyGateTest {

    private final SluiceRuntime runtime = SluiceRuntime.start(SluiceConfigLoader.load(ConfigSources.of(Map.of(
            "sluice.limit.reports.concurrency", "1", "sluice.limit.reports.mode", "shadow",
            "sluice.limit.reports.paths", "/reports"))));
    private final RateLimitGate gate = RateLimitGate.of(runtime, HeaderMode.IETF);
    private final List<RateLimitGate.Policy> policies = List.of(
            RateLimitGate.Policy.of(runtime.config().policy("reports").orElseThrow(), false));

    @AfterEach
    void stop() {
        runtime.close();
    }

    private Verdict request() {
        return gate.decide(TestRequest.get("/reports"), policies, null);
    }

    private long wouldDeny() {
        return runtime.metrics().policy("reports").wouldDenyCount();
    }

    @Test
    void aRequestThatFoundAPermitFreeHoldsItUntilItsResponseCompletes() {
        Verdict first = request();
        assertThat(first.admitted()).isTrue();
        assertThat(first.afterResponse().isEmpty()).as("the first request holds the permit").isFalse();
        assertThat(wouldDeny()).isZero();

        Verdict second = request();
        assertThat(second.admitted()).as("shadowed: never refused").isTrue();
        assertThat(second.headers()).isEmpty();
        assertThat(wouldDeny()).isEqualTo(1);
        second.afterResponse().completed(200);

        Verdict third = request();
        assertThat(wouldDeny()).as("the second request held nothing to return").isEqualTo(2);
        third.afterResponse().completed(200);

        first.afterResponse().completed(200);
        Verdict fourth = request();
        assertThat(wouldDeny()).as("the first request's permit came back with its response").isEqualTo(2);
        fourth.afterResponse().completed(200);
    }
}
