package dev.sluice.internal.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Publishes an application's metrics in a Micrometer {@link MeterRegistry}: function counters, function
 * timers and gauges that read Sluice's own counters when the registry is scraped, so recording costs nothing
 * extra. Names and tags are listed in {@code docs/observability.md}. {@link #close()} removes every meter it
 * added, so a server-wide registry does not keep the application's class loader alive.
 *
 * <p>Loaded only after {@link MetricsBridges} found Micrometer visible to both the application and Sluice;
 * nothing else refers to this class. Not thread-safe on its own; {@link SluiceMetrics} serialises calls.
 */
final class MicrometerExporter implements MetricsExporter {

    private final MeterRegistry registry;
    private final String description;
    private final Tags app;
    private final List<Meter> meters = new ArrayList<>();

    private MicrometerExporter(MeterRegistry registry, String description, String app) {
        this.registry = registry;
        this.description = description;
        this.app = Tags.of("app", app);
    }

    /** Over {@link Metrics#globalRegistry}. */
    static MetricsExporter global(String app) {
        return new MicrometerExporter(Metrics.globalRegistry, "Micrometer (Metrics.globalRegistry)", app);
    }

    /** Over a registry found elsewhere (a CDI bean); {@code registry} must be a {@link MeterRegistry}. */
    static MetricsExporter over(Object registry, String app) {
        return new MicrometerExporter((MeterRegistry) registry, "Micrometer (" + registry.getClass().getName() + ")", app);
    }

    @Override
    public void runtime(SluiceMetrics metrics) {
        RedisStatus status = metrics.redis();
        meters.add(Gauge.builder("sluice.redis.reachable", status, s -> s.isReachable() ? 1 : 0)
                .description("1 while the last Redis call got an answer, else 0")
                .tags(app).register(registry));
        meters.add(Gauge.builder("sluice.breaker.open", status, s -> s.isBreakerOpen() ? 1 : 0)
                .description("1 while the rate-limit circuit breaker skips Redis, else 0")
                .tags(app).register(registry));
        ReloadMetrics reloads = metrics.reloads();
        counter("sluice.config.reloads.applied", "Configuration reloads that changed at least one policy", reloads,
                ReloadMetrics::appliedCount, app);
        counter("sluice.config.reloads.refused", "Configuration reloads refused because a value was bad", reloads,
                ReloadMetrics::refusedCount, app);
    }

    @Override
    public void policy(PolicyMetrics policy) {
        Tags tags = app.and(Kind.RATE_LIMIT.tag(), policy.name());
        String prefix = Kind.RATE_LIMIT.prefix();
        counter(prefix + ".allowed", "Requests the policy admitted", policy, PolicyMetrics::allowedCount, tags);
        counter(prefix + ".denied", "Requests the policy refused (429)", policy, PolicyMetrics::deniedCount, tags);
        counter(prefix + ".redis.errors", "Requests Redis could not decide", policy, PolicyMetrics::redisErrorCount, tags);
        counter(prefix + ".fail.open", "Requests admitted unchecked while Redis was unreachable", policy,
                PolicyMetrics::failOpenCount, tags);
        counter(prefix + ".denied.locally", "Refused requests answered from the node's deny cache, without Redis",
                policy, PolicyMetrics::deniedLocallyCount, tags);
        counter(prefix + ".allowed.locally", "Admitted requests paid from the node's local budget, without Redis",
                policy, PolicyMetrics::allowedLocallyCount, tags);
        counter(prefix + ".would.deny", "Requests a shadowed policy would have refused", policy,
                PolicyMetrics::wouldDenyCount, tags);
        counter(prefix + ".charged.after.response", "Responses whose status the policy counts, charged after the"
                + " response", policy, PolicyMetrics::chargedAfterResponseCount, tags);
        counter(prefix + ".exempt", "Requests the policy neither checked nor charged because the client is exempt",
                policy, PolicyMetrics::exemptCount, tags);
    }

    @Override
    public void guard(GuardMetrics guard) {
        Kind kind = guard.kind();
        Tags tags = app.and(kind.tag(), guard.name());
        String prefix = kind.prefix();
        timer(prefix + ".wait", "Time acquisitions waited", guard.waits(), tags);
        timer(prefix + ".hold", "Time held", guard.holds(), tags);
        counter(prefix + ".timeouts", "Acquisitions that gave up after their maximum wait", guard,
                GuardMetrics::timeoutCount, tags);
        counter(prefix + ".leases.lost", "Holds whose lease was lost before release", guard,
                GuardMetrics::leasesLostCount, tags);
        counter(prefix + ".renewals", "Lease renewals by the watchdog", guard, GuardMetrics::renewalCount, tags);
        counter(prefix + ".redis.errors", "Acquisitions that failed because Redis could not be reached", guard,
                GuardMetrics::redisErrorCount, tags);
    }

    private <T> void counter(String name, String description, T source, java.util.function.ToLongFunction<T> count,
                             Tags tags) {
        meters.add(FunctionCounter.builder(name, source, s -> count.applyAsLong(s))
                .description(description).tags(tags).register(registry));
    }

    private void timer(String name, String description, Timer timer, Tags tags) {
        meters.add(FunctionTimer.builder(name, timer, Timer::count, Timer::totalNanos, TimeUnit.NANOSECONDS)
                .description(description).tags(tags).register(registry));
        meters.add(TimeGauge.builder(name + ".max", timer, TimeUnit.NANOSECONDS, Timer::maxNanos)
                .description(description + ": the longest since the application started").tags(tags).register(registry));
    }

    @Override
    public void close() {
        for (Meter meter : meters) {
            registry.remove(meter);
            meter.close();
        }
        meters.clear();
    }

    @Override
    public String toString() {
        return description;
    }
}
