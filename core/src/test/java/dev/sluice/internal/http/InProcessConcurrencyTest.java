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

/** Concurrency limits without Redis: the in-process store holds the permits of this JVM's requests. */
class InProcessConcurrencyTest {

    private final SluiceRuntime runtime = SluiceRuntime.start(SluiceConfigLoader.load(ConfigSources.of(Map.of(
            "sluice.limit.reports.concurrency", "2", "sluice.limit.reports.paths", "/reports"))));
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

    @Test
    void twoInFlightThenRefusedUntilOneCompletes() {
        Verdict first = request();
        assertThat(request().admitted()).isTrue();
        Verdict third = request();
        assertThat(third.status()).isEqualTo(429);
        assertThat(third.headers()).contains(new RateLimitHeaders.Header("RateLimit-Policy",
                "\"reports\";q=2;qu=\"concurrent-requests\""), new RateLimitHeaders.Header("Retry-After", "1"));

        first.afterResponse().completed(200);
        first.afterResponse().completed(200);

        assertThat(request().admitted()).isTrue();
        assertThat(request().status()).as("a second completion returns nothing more").isEqualTo(429);
    }
}
