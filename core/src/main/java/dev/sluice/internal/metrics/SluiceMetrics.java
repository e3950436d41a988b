package dev.sluice.internal.metrics;

import dev.sluice.internal.config.RedisSettings;
import dev.sluice.internal.config.SluiceConfig;

import javax.management.MBeanServer;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The metrics of one application (one {@code SluiceRuntime}): per rate-limit policy, per lock name and per
 * semaphore name, plus the Redis status, published through JMX always and through MicroProfile Metrics,
 * Micrometer or OpenTelemetry when the application has one (see {@link MetricsBridges}).
 *
 * <p><b>Bounded names.</b> A name is published only after it was {@linkplain #register registered}, which
 * the runtime does for names from configuration ({@code sluice.limit.*}, {@code sluice.lock.*},
 * {@code sluice.semaphore.*}) and the CDI extension does for {@code @Locked} and {@code @Bounded} names at
 * deployment. Lookups by any other name, such as a programmatic lock's key that may well carry request data,
 * land in the one entry named {@link #OTHER}. So the set of names in JMX, MicroProfile Metrics and Micrometer
 * is fixed by the deployment, whatever requests arrive. At most {@link #MAX_NAMES} names per kind are
 * registered as a last guard.
 *
 * <p>Thread-safe. Lookups ({@link #policy}, {@link #lock}, {@link #semaphore}) are one
 * {@link ConcurrentHashMap#get}; registration and exporter changes are serialised. {@link #close()}
 * unpublishes everything.
 */
public final class SluiceMetrics implements AutoCloseable {

    /**
     * Where unregistered names are counted. Parentheses cannot occur in a policy name, so it never collides
     * with a configured policy.
     */
    public static final String OTHER = "(other)";

    /** Registered names per kind beyond which further names count as {@link #OTHER}. */
    public static final int MAX_NAMES = 1000;

    /** The application id used when nothing better is known. */
    public static final String DEFAULT_APP = "default";

    private static final System.Logger LOG = System.getLogger("dev.sluice");

    private final String app;
    private final RedisStatus redis;
    private final ReloadMetrics reloads = new ReloadMetrics();
    private volatile java.util.function.BinaryOperator<String> resetAction;
    private final Map<String, PolicyMetrics> policies = new ConcurrentHashMap<>();
    private final RateLimitEvents rateLimitCounts = (policy, rawKey, outcome) -> policy(policy.name()).count(outcome);
    private final Map<String, GuardMetrics> locks = new ConcurrentHashMap<>();
    private final Map<String, GuardMetrics> semaphores = new ConcurrentHashMap<>();
    private final List<MetricsExporter> exporters = new ArrayList<>();
    private MetricsExporter external;
    private boolean warnedFull;
    private boolean closed;

    private SluiceMetrics(String app, RedisSettings settings) {
        this.app = app;
        this.redis = new RedisStatus(app, settings);
    }

    /**
     * Metrics published in the platform MBean server under {@code app}, or under {@code app-2},
     * {@code app-3}... when another application of this server already uses the id.
     *
     * @param app a stable identifier of the application, such as its deployment name
     */
    public static SluiceMetrics start(String app, RedisSettings settings) {
        return start(app, settings, JmxExporter.platformServer());
    }

    static SluiceMetrics start(String app, RedisSettings settings, MBeanServer server) {
        String base = app == null || app.isBlank() ? DEFAULT_APP : app.trim();
        try {
            for (int i = 1; i <= MAX_NAMES; i++) {
                String candidate = i == 1 ? base : base + "-" + i;
                SluiceMetrics metrics = new SluiceMetrics(candidate, settings);
                JmxExporter jmx = new JmxExporter(server, candidate);
                if (jmx.claim(metrics)) {
                    metrics.exporters.add(jmx);
                    return metrics;
                }
            }
        } catch (RuntimeException | LinkageError e) {
            LOG.log(Level.WARNING, "Sluice: JMX is not available, metrics of app " + base + " are not published there", e);
        }
        return new SluiceMetrics(base, settings);
    }

    /** Metrics that are counted but published nowhere (engines and services built directly, in tests). */
    public static SluiceMetrics unpublished(RedisSettings settings) {
        return new SluiceMetrics(DEFAULT_APP, settings);
    }

    /** The id this application's metrics carry ({@code app=} in JMX, tag {@code app} elsewhere). */
    public String app() {
        return app;
    }

    public RedisStatus redis() {
        return redis;
    }

    /** The application's configuration reloads, and the reload the JMX operation runs. */
    public ReloadMetrics reloads() {
        return reloads;
    }

    /** Sets what a policy's JMX {@code reset(key)} runs, with the policy's name and the key; null when closing. */
    public void resetAction(java.util.function.BinaryOperator<String> action) {
        resetAction = action;
    }

    private String reset(String policy, String key) {
        java.util.function.BinaryOperator<String> a = resetAction;
        return a == null ? "nothing to reset" : a.apply(policy, key);
    }

    /** Registers every policy, lock and semaphore name {@code config} defines. */
    public void register(SluiceConfig config) {
        config.policies().keySet().forEach(name -> register(Kind.RATE_LIMIT, name));
        config.locks().keySet().forEach(name -> register(Kind.LOCK, name));
        config.semaphores().keySet().forEach(name -> register(Kind.SEMAPHORE, name));
    }

    /**
     * Makes {@code name} a published name of {@code kind}. Call it only with names from configuration or
     * annotations, never with anything derived from a request: that is what keeps the published names bounded.
     */
    public synchronized void register(Kind kind, String name) {
        if (name == null || name.isEmpty()) {
            return;
        }
        Map<String, ?> table = table(kind);
        if (table.containsKey(name)) {
            return;
        }
        if (table.size() >= MAX_NAMES && !OTHER.equals(name)) {
            if (!warnedFull) {
                warnedFull = true;
                LOG.log(Level.WARNING, "Sluice (app " + app + "): more than " + MAX_NAMES + " " + kind.tag()
                        + " names registered; further ones are counted under " + OTHER);
            }
            return;
        }
        if (kind == Kind.RATE_LIMIT) {
            PolicyMetrics policy = new PolicyMetrics(name, redis, key -> reset(name, key));
            policies.put(name, policy);
            for (MetricsExporter exporter : allExporters()) {
                exporter.policy(policy);
            }
        } else {
            GuardMetrics guard = new GuardMetrics(kind, name);
            (kind == Kind.LOCK ? locks : semaphores).put(name, guard);
            for (MetricsExporter exporter : allExporters()) {
                exporter.guard(guard);
            }
        }
    }

    /**
     * The listener the rate-limit engine reports its decisions to: each outcome counted in its policy's
     * {@link PolicyMetrics} (under {@link #OTHER} for an unregistered name).
     */
    public RateLimitEvents rateLimits() {
        return rateLimitCounts;
    }

    /** The counters of policy {@code name}, or of {@link #OTHER} when the name was not registered. */
    public PolicyMetrics policy(String name) {
        PolicyMetrics found = policies.get(name);
        if (found != null) {
            return found;
        }
        found = policies.get(OTHER);
        if (found == null) {
            register(Kind.RATE_LIMIT, OTHER);
            found = policies.get(OTHER);
        }
        return found;
    }

    /** The metrics of lock name {@code name}, or of {@link #OTHER} when the name was not registered. */
    public GuardMetrics lock(String name) {
        return guard(Kind.LOCK, locks, name);
    }

    /** The metrics of semaphore {@code name}, or of {@link #OTHER} when the name was not registered. */
    public GuardMetrics semaphore(String name) {
        return guard(Kind.SEMAPHORE, semaphores, name);
    }

    /** Whether {@code name} is a registered lock name (else a lock by that key counts as {@link #OTHER}). */
    public boolean isRegistered(Kind kind, String name) {
        return name != null && table(kind).containsKey(name);
    }

    private GuardMetrics guard(Kind kind, Map<String, GuardMetrics> table, String name) {
        GuardMetrics found = name == null ? null : table.get(name);
        if (found != null) {
            return found;
        }
        found = table.get(OTHER);
        if (found == null) {
            register(kind, OTHER);
            found = table.get(OTHER);
        }
        return found;
    }

    /** The registered names of {@code kind}, sorted ({@link #OTHER} included once something counted there). */
    public Set<String> names(Kind kind) {
        return new TreeSet<>(table(kind).keySet());
    }

    /** Every policy's counters. */
    public Collection<PolicyMetrics> policies() {
        return List.copyOf(policies.values());
    }

    private Map<String, ?> table(Kind kind) {
        return switch (kind) {
            case RATE_LIMIT -> policies;
            case LOCK -> locks;
            case SEMAPHORE -> semaphores;
        };
    }

    /**
     * Publishes through {@code exporter} as well (MicroProfile Metrics, Micrometer or OpenTelemetry), replacing the one set
     * before, which is closed: one external registry at a time, so no metric is reported twice.
     */
    synchronized void exportExternally(MetricsExporter exporter) {
        if (closed) {
            exporter.close();
            return;
        }
        if (external != null) {
            external.close();
        }
        external = exporter;
        exporter.runtime(this);
        policies.values().forEach(exporter::policy);
        locks.values().forEach(exporter::guard);
        semaphores.values().forEach(exporter::guard);
    }

    /** The external exporter's description, for logs and tests; empty when only JMX publishes. */
    synchronized String externalExporter() {
        return external == null ? "" : external.toString();
    }

    private List<MetricsExporter> allExporters() {
        if (external == null) {
            return exporters;
        }
        List<MetricsExporter> all = new ArrayList<>(exporters);
        all.add(external);
        return all;
    }

    /** Unpublishes everything: MBeans unregistered, meters removed. Counting goes on harmlessly. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (MetricsExporter exporter : allExporters()) {
            exporter.close();
        }
        exporters.clear();
        external = null;
    }
}
