package dev.sluice.internal.limit;

import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.limit.RateLimitEngine.LimitCall;
import dev.sluice.internal.lock.Watchdog;
import dev.sluice.internal.runtime.SluiceRuntime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A permit whose request never reports its end (a JAX-RS exception no mapper maps, outside a servlet
 * container) is renewed only for a bounded time, then runs out, so its key is not blocked until the node stops.
 */
class HeldPermitsLongestHoldTest {

    private final SluiceRuntime runtime = SluiceRuntime.start(SluiceConfigLoader.load(ConfigSources.of(Map.of(
            "sluice.limit.reports.concurrency", "1", "sluice.limit.reports.concurrency-lease", "300ms"))));
    private final Watchdog watchdog = Watchdog.ownScheduler();
    private final PolicyConfig reports = runtime.config().policy("reports").orElseThrow();

    @AfterEach
    void stop() {
        watchdog.close();
        runtime.close();
    }

    private List<LimitCall> take() {
        RateLimitEngine engine = runtime.rateLimits();
        List<LimitCall> calls = List.of(LimitCall.concurrency(reports, "alice", ChargeMode.CONCURRENCY,
                engine.newPermitId()));
        return engine.decide(calls).get(0).allowed() ? calls : null;
    }

    @Test
    void aPermitNeverReleasedIsRenewedPastItsLeaseThenNoLongerThanTheLongestHold() {
        List<LimitCall> held = take();
        assertThat(held).isNotNull();
        HeldPermits.hold(runtime.rateLimits(), held, () -> watchdog, lease -> 1_500, System::nanoTime);

        await().during(Duration.ofMillis(900)).atMost(Duration.ofSeconds(5))
                .until(() -> take() == null);
        await().atMost(Duration.ofSeconds(10)).until(() -> take() != null);
    }

    @Test
    void theLongestHoldIsTenLeasesAndAtLeastTenMinutes() {
        assertThat(HeldPermits.longestHoldMillis(30_000)).isEqualTo(600_000);
        assertThat(HeldPermits.longestHoldMillis(120_000)).isEqualTo(1_200_000);
    }
}
