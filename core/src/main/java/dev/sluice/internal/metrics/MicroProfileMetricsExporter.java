package dev.sluice.internal.metrics;

import org.eclipse.microprofile.metrics.MetricID;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Publishes an application's metrics in its MicroProfile Metrics application registry (MP Metrics 4 and 5:
 * only API present in both is used). MP Metrics has no function counters or timers, so Sluice's counters
 * and timers {@linkplain Counter#mirror mirror} every later increment into MP counters and timers, which are
 * seeded with the counts reached before; the Redis gauges read Sluice's state. Names and tags are listed in
 * {@code docs/observability.md}. {@link #close()} stops the mirroring and removes every metric it added.
 *
 * <p>Loaded only after {@link MetricsBridges} found the MP Metrics API visible to both the application and
 * Sluice; nothing else refers to this class. Not thread-safe on its own; {@link SluiceMetrics} serialises calls.
 */
final class MicroProfileMetricsExporter implements MetricsExporter {

    private final MetricRegistry registry;
    private final String app;
    private final List<MetricID> ids = new ArrayList<>();
    private final List<Counter> mirroredCounters = new ArrayList<>();
    private final List<Timer> mirroredTimers = new ArrayList<>();

    private MicroProfileMetricsExporter(MetricRegistry registry, String app) {
        this.registry = registry;
        this.app = app;
    }

    /** {@code registry} must be a {@link MetricRegistry} (the application registry, from CDI). */
    static MetricsExporter over(Object registry, String app) {
        return new MicroProfileMetricsExporter((MetricRegistry) registry, app);
    }

    @Override
    public void runtime(SluiceMetrics metrics) {
        RedisStatus status = metrics.redis();
        Tag[] tags = {new Tag("app", app)};
        registry.gauge("sluice.redis.reachable", status, s -> s.isReachable() ? 1 : 0, tags);
        ids.add(new MetricID("sluice.redis.reachable", tags));
        registry.gauge("sluice.breaker.open", status, s -> s.isBreakerOpen() ? 1 : 0, tags);
        ids.add(new MetricID("sluice.breaker.open", tags));
        counter("sluice.config.reloads.applied", metrics.reloads().applied, tags);
        counter("sluice.config.reloads.refused", metrics.reloads().refused, tags);
    }

    @Override
    public void policy(PolicyMetrics policy) {
        Tag[] tags = tags(Kind.RATE_LIMIT, policy.name());
        String prefix = Kind.RATE_LIMIT.prefix();
        counter(prefix + ".allowed", policy.allowed, tags);
        counter(prefix + ".denied", policy.denied, tags);
        counter(prefix + ".redis.errors", policy.redisErrors, tags);
        counter(prefix + ".fail.open", policy.failOpen, tags);
        counter(prefix + ".denied.locally", policy.deniedLocally, tags);
        counter(prefix + ".allowed.locally", policy.allowedLocally, tags);
        counter(prefix + ".would.deny", policy.wouldDeny, tags);
        counter(prefix + ".charged.after.response", policy.chargedAfterResponse, tags);
        counter(prefix + ".exempt", policy.exempt, tags);
    }

    @Override
    public void guard(GuardMetrics guard) {
        Tag[] tags = tags(guard.kind(), guard.name());
        String prefix = guard.kind().prefix();
        timer(prefix + ".wait", guard.waits, tags);
        timer(prefix + ".hold", guard.holds, tags);
        counter(prefix + ".timeouts", guard.timeouts, tags);
        counter(prefix + ".leases.lost", guard.leasesLost, tags);
        counter(prefix + ".renewals", guard.renewals, tags);
        counter(prefix + ".redis.errors", guard.redisErrors, tags);
    }

    private Tag[] tags(Kind kind, String name) {
        return new Tag[] {new Tag("app", app), new Tag(kind.tag(), name)};
    }

    private void counter(String name, Counter source, Tag[] tags) {
        org.eclipse.microprofile.metrics.Counter target = registry.counter(name, tags);
        ids.add(new MetricID(name, tags));
        long before = source.count();
        if (before > 0) {
            target.inc(before);
        }
        source.mirror(target::inc);
        mirroredCounters.add(source);
    }

    private void timer(String name, Timer source, Tag[] tags) {
        org.eclipse.microprofile.metrics.Timer target = registry.timer(name, tags);
        ids.add(new MetricID(name, tags));
        source.mirror(nanos -> target.update(Duration.ofNanos(nanos)));
        mirroredTimers.add(source);
    }

    @Override
    public void close() {
        mirroredCounters.forEach(c -> c.mirror(null));
        mirroredTimers.forEach(t -> t.mirror(null));
        mirroredCounters.clear();
        mirroredTimers.clear();
        for (MetricID id : ids) {
            try {
                registry.remove(id);
            } catch (RuntimeException ignored) {
                // The registry may already be gone with the application; nothing of ours stays in it then.
            }
        }
        ids.clear();
    }

    @Override
    public String toString() {
        return "MicroProfile Metrics";
    }
}
