package dev.sluice.internal.metrics;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.MeterProvider;
import io.opentelemetry.api.metrics.ObservableLongMeasurement;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;

/**
 * Publishes an application's metrics as OpenTelemetry instruments of the meter {@value #SCOPE}, named after
 * OpenTelemetry's semantic conventions: dotted lowercase names, the outcome of a rate-limit decision as an
 * attribute of one counter ({@code sluice.ratelimit.requests}, like ASP.NET Core's
 * {@code aspnetcore.rate_limiting.requests}), waits and holds as histograms in seconds ({@code wait_time},
 * {@code hold_time}, like {@code db.client.connection.wait_time}). Counters and gauges are asynchronous
 * instruments whose callbacks read Sluice's own counters at collection, so counting costs nothing more; the
 * histograms need every duration, which Sluice's timers {@linkplain Timer#mirror mirror} into them. The names,
 * units and attributes are listed in {@code docs/observability.md}.
 *
 * <p>{@link #close()} unregisters every callback and stops the mirroring. OpenTelemetry has no way to remove a
 * histogram from a meter; it keeps its last points, which hold only strings, nothing of the application's.
 *
 * <p>Loaded only after {@link MetricsBridges} found the OpenTelemetry API visible to both the application and
 * Sluice; nothing else refers to this class. Callbacks may run on the SDK's thread at any time; the rest is
 * called under {@link SluiceMetrics}' lock.
 */
final class OpenTelemetryExporter implements MetricsExporter {

    /** The instrumentation scope (meter name) of every instrument. */
    static final String SCOPE = "dev.sluice";

    static final AttributeKey<String> APP = AttributeKey.stringKey("sluice.app");
    static final AttributeKey<String> POLICY = AttributeKey.stringKey("sluice.ratelimit.policy");
    static final AttributeKey<String> RESULT = AttributeKey.stringKey("sluice.ratelimit.result");
    static final AttributeKey<String> RELOAD_RESULT = AttributeKey.stringKey("sluice.config.reload.result");

    /**
     * Bucket boundaries of the wait and hold histograms, in seconds: those of {@code http.server.request.duration}
     * up to 10 s, then 30 s and 60 s for holds as long as a lease.
     */
    static final List<Double> BUCKETS = List.of(0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5,
            5.0, 7.5, 10.0, 30.0, 60.0);

    private final Meter meter;
    private final String app;
    private final Attributes appOnly;
    private final List<AutoCloseable> callbacks = new ArrayList<>();
    private final List<Timer> mirrored = new ArrayList<>();
    private final List<PolicySeries> policies = new CopyOnWriteArrayList<>();
    private final Map<Kind, GuardInstruments> guards = new EnumMap<>(Kind.class);

    private OpenTelemetryExporter(Meter meter, String app) {
        this.meter = meter;
        this.app = app;
        this.appOnly = Attributes.of(APP, app);
        ratelimitInstruments();
        guards.put(Kind.LOCK, new GuardInstruments(Kind.LOCK));
        guards.put(Kind.SEMAPHORE, new GuardInstruments(Kind.SEMAPHORE));
    }

    /**
     * Over the meter of {@code openTelemetry} (an {@link OpenTelemetry}, the application's CDI bean); empty when
     * that meter records nothing, as with {@code otel.sdk.disabled=true}, MicroProfile Telemetry's default.
     */
    static Optional<MetricsExporter> over(Object openTelemetry, String app) {
        Meter meter = ((OpenTelemetry) openTelemetry).getMeterProvider().meterBuilder(SCOPE).build();
        if (meter.getClass() == MeterProvider.noop().get(SCOPE).getClass()) {
            return Optional.empty();
        }
        return Optional.of(new OpenTelemetryExporter(meter, app));
    }

    private void ratelimitInstruments() {
        String prefix = Kind.RATE_LIMIT.prefix();
        counter(prefix + ".requests", "{request}", "Requests a rate-limit policy decided, by result", m -> {
            for (PolicySeries p : policies) {
                m.record(p.metrics.allowedCount(), p.allowed);
                m.record(p.metrics.deniedCount(), p.denied);
                m.record(p.metrics.wouldDenyCount(), p.wouldDeny);
                m.record(p.metrics.exemptCount(), p.exempt);
            }
        });
        policyCounter(prefix + ".denied_locally", "{request}",
                "Refused requests answered from the node's deny cache, without Redis", PolicyMetrics::deniedLocallyCount);
        policyCounter(prefix + ".allowed_locally", "{request}",
                "Admitted requests paid from the node's local budget, without Redis", PolicyMetrics::allowedLocallyCount);
        policyCounter(prefix + ".redis.errors", "{request}", "Requests Redis could not decide",
                PolicyMetrics::redisErrorCount);
        policyCounter(prefix + ".fail_open", "{request}", "Requests admitted unchecked while Redis was unreachable",
                PolicyMetrics::failOpenCount);
        policyCounter(prefix + ".charged_after_response", "{request}",
                "Responses whose status the policy counts, charged after the response",
                PolicyMetrics::chargedAfterResponseCount);
    }

    private void policyCounter(String name, String unit, String description, ToLongFunction<PolicyMetrics> count) {
        counter(name, unit, description, m -> {
            for (PolicySeries p : policies) {
                m.record(count.applyAsLong(p.metrics), p.base);
            }
        });
    }

    private void counter(String name, String unit, String description, Consumer<ObservableLongMeasurement> callback) {
        callbacks.add(meter.counterBuilder(name).setUnit(unit).setDescription(description).buildWithCallback(callback));
    }

    @Override
    public void runtime(SluiceMetrics metrics) {
        RedisStatus status = metrics.redis();
        callbacks.add(meter.gaugeBuilder("sluice.redis.reachable").ofLongs().setUnit("1")
                .setDescription("1 while the last Redis call got an answer, else 0")
                .buildWithCallback(m -> m.record(status.isReachable() ? 1 : 0, appOnly)));
        callbacks.add(meter.gaugeBuilder("sluice.breaker.open").ofLongs().setUnit("1")
                .setDescription("1 while the rate-limit circuit breaker skips Redis, else 0")
                .buildWithCallback(m -> m.record(status.isBreakerOpen() ? 1 : 0, appOnly)));
        ReloadMetrics reloads = metrics.reloads();
        Attributes applied = Attributes.of(APP, app, RELOAD_RESULT, "applied");
        Attributes refused = Attributes.of(APP, app, RELOAD_RESULT, "refused");
        counter("sluice.config.reloads", "{reload}", "Configuration reloads, by result: applied (changed at least"
                + " one policy) or refused (a value was bad)", m -> {
                    m.record(reloads.appliedCount(), applied);
                    m.record(reloads.refusedCount(), refused);
                });
    }

    @Override
    public void policy(PolicyMetrics policy) {
        policies.add(new PolicySeries(policy, app));
    }

    @Override
    public void guard(GuardMetrics guard) {
        guards.get(guard.kind()).add(guard);
    }

    @Override
    public void close() {
        mirrored.forEach(t -> t.mirror(null));
        mirrored.clear();
        for (AutoCloseable callback : callbacks) {
            try {
                callback.close();
            } catch (Exception ignored) {
                // The SDK may already be shut down with the application; no callback of ours runs then.
            }
        }
        callbacks.clear();
        policies.clear();
        guards.values().forEach(g -> g.series.clear());
    }

    @Override
    public String toString() {
        return "OpenTelemetry (" + meter.getClass().getName() + ")";
    }

    /** The attribute sets of one policy, built once. */
    private static final class PolicySeries {
        final PolicyMetrics metrics;
        final Attributes base;
        final Attributes allowed;
        final Attributes denied;
        final Attributes wouldDeny;
        final Attributes exempt;

        PolicySeries(PolicyMetrics metrics, String app) {
            this.metrics = metrics;
            this.base = Attributes.of(APP, app, POLICY, metrics.name());
            this.allowed = result("allowed");
            this.denied = result("denied");
            this.wouldDeny = result("would_deny");
            this.exempt = result("exempt");
        }

        private Attributes result(String result) {
            return base.toBuilder().put(RESULT, result).build();
        }
    }

    /** The instruments of one kind (locks or semaphores), shared by every name of that kind. */
    private final class GuardInstruments {
        final AttributeKey<String> nameKey;
        final DoubleHistogram waitTime;
        final DoubleHistogram holdTime;
        final List<GuardSeries> series = new CopyOnWriteArrayList<>();

        GuardInstruments(Kind kind) {
            String prefix = kind.prefix();
            String what = kind == Kind.LOCK ? "a lock" : "a permit";
            nameKey = AttributeKey.stringKey(prefix + ".name");
            waitTime = histogram(prefix + ".wait_time", "Time an acquisition of " + what + " waited, from the call to the grant");
            holdTime = histogram(prefix + ".hold_time", "Time " + what + " was held, from the grant to the release");
            guardCounter(prefix + ".timeouts", "{timeout}", "Acquisitions that gave up after their maximum wait",
                    GuardMetrics::timeoutCount);
            guardCounter(prefix + ".leases_lost", "{lease}", "Holds whose lease was lost before release",
                    GuardMetrics::leasesLostCount);
            guardCounter(prefix + ".renewals", "{renewal}", "Lease renewals by the watchdog", GuardMetrics::renewalCount);
            guardCounter(prefix + ".redis.errors", "{acquisition}",
                    "Acquisitions that failed because Redis could not be reached", GuardMetrics::redisErrorCount);
        }

        private DoubleHistogram histogram(String name, String description) {
            return meter.histogramBuilder(name).setUnit("s").setDescription(description)
                    .setExplicitBucketBoundariesAdvice(BUCKETS).build();
        }

        private void guardCounter(String name, String unit, String description, ToLongFunction<GuardMetrics> count) {
            counter(name, unit, description, m -> {
                for (GuardSeries s : series) {
                    m.record(count.applyAsLong(s.metrics), s.attributes);
                }
            });
        }

        void add(GuardMetrics guard) {
            Attributes attributes = Attributes.of(APP, app, nameKey, guard.name());
            series.add(new GuardSeries(guard, attributes));
            guard.waits().mirror(nanos -> waitTime.record(nanos / 1e9, attributes));
            guard.holds().mirror(nanos -> holdTime.record(nanos / 1e9, attributes));
            mirrored.add(guard.waits());
            mirrored.add(guard.holds());
        }
    }

    private record GuardSeries(GuardMetrics metrics, Attributes attributes) {
    }
}
