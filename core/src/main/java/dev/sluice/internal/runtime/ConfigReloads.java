package dev.sluice.internal.runtime;

import dev.sluice.SluiceConfigException;
import dev.sluice.internal.config.Bandwidth;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.limit.RateLimitEngine;
import dev.sluice.internal.metrics.ReloadMetrics;

import java.lang.System.Logger.Level;
import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Live reconfiguration of one application ({@code sluice.config.refresh}, JMX {@code reload()}): the
 * {@link Reloadable}s that apply its policies, re-read on demand and, when a refresh period is set, by one
 * daemon thread per runtime, which {@link #close()} stops.
 *
 * <p>A reloadable whose new configuration has a bad value keeps all of its policies; the refusal is counted
 * and logged as an ERROR that names key, value and accepted form (once per distinct message while the value
 * stays bad, so a periodic refresh does not repeat it). A reload that changed a policy clears the deny cache
 * (its refusals were decided under the old limits), returns the unspent tokens of the changed policies' local
 * budgets (which start afresh under the new limits) and logs the changes at INFO. Settings read only at
 * deployment (Redis, key prefix, scripts, headers, client addresses, deny cache size, the refresh itself)
 * are left as they were, with one WARN per distinct change.
 *
 * <p>Thread-safe; reloads of one runtime run one at a time.
 */
public final class ConfigReloads implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger("dev.sluice");

    /**
     * What one reload of one reloadable did.
     *
     * @param changes    the policies whose configuration changed, appeared or went away
     * @param notApplied keys that changed but are read only at deployment
     */
    public record Outcome(List<Change> changes, List<String> notApplied) {

        /** Nothing changed. */
        public static final Outcome NONE = new Outcome(List.of(), List.of());

        public Outcome {
            changes = List.copyOf(changes);
            notApplied = List.copyOf(notApplied);
        }
    }

    /**
     * One policy before and after a reload.
     *
     * @param before null when the policy is new
     * @param after  null when the policy went away
     */
    public record Change(String policy, PolicyConfig before, PolicyConfig after) {

        /**
         * {@code api: rate 100/1m -> 50/1m, methods [] -> [POST]}: every attribute that differs, found over the
         * record's components so that attributes added to {@link PolicyConfig} are reported too.
         */
        @Override
        public String toString() {
            if (before == null) {
                return policy + ": added " + RuntimeSummary.policy(after);
            }
            if (after == null) {
                return policy + ": removed";
            }
            List<String> differences = new ArrayList<>();
            for (RecordComponent component : PolicyConfig.class.getRecordComponents()) {
                Object was = value(component, before);
                Object is = value(component, after);
                if (!Objects.equals(was, is)) {
                    differences.add(attribute(component.getName()) + " " + show(was) + " -> " + show(is));
                }
            }
            return policy + ": " + String.join(", ", differences);
        }

        private static Object value(RecordComponent component, PolicyConfig policy) {
            try {
                return component.getAccessor().invoke(policy);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }

        /** The configuration attribute a component holds: {@code onRedisFailure} is {@code on-redis-failure}. */
        private static String attribute(String component) {
            return component.equals("bandwidths") ? "rate"
                    : component.replaceAll("([a-z])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
        }

        private static String show(Object value) {
            if (value instanceof List<?> list && !list.isEmpty() && list.get(0) instanceof Bandwidth) {
                return list.stream().map(b -> RuntimeSummary.bandwidth((Bandwidth) b)).collect(Collectors.joining(","));
            }
            return value instanceof Enum<?> e ? e.name().toLowerCase(Locale.ROOT).replace('_', '-') : String.valueOf(value);
        }
    }

    private static final class Registration implements AutoCloseable {
        final Reloadable reloadable;
        final ClassLoader loader;
        final ConfigReloads owner;
        String lastRefusal;
        String lastNotApplied;

        Registration(Reloadable reloadable, ClassLoader loader, ConfigReloads owner) {
            this.reloadable = reloadable;
            this.loader = loader;
            this.owner = owner;
        }

        @Override
        public void close() {
            owner.registrations.remove(this);
        }
    }

    private final String app;
    private final RateLimitEngine rateLimits;
    private final ReloadMetrics metrics;
    private final List<Registration> registrations = new CopyOnWriteArrayList<>();
    private ScheduledExecutorService scheduler;
    private Duration period = Duration.ZERO;
    private boolean closed;

    ConfigReloads(String app, RateLimitEngine rateLimits, ReloadMetrics metrics) {
        this.app = app;
        this.rateLimits = rateLimits;
        this.metrics = metrics;
        metrics.action(this::reload);
    }

    /**
     * Adds a reloadable; when {@code refresh} is positive and no refresh runs yet, starts one at that period
     * (the first period set in an application is its period).
     *
     * @param loader the application's class loader, the context class loader while it reloads
     * @return closing it removes the reloadable (its adapter was undeployed)
     */
    public synchronized AutoCloseable register(Reloadable reloadable, ClassLoader loader, Duration refresh) {
        Registration registration = new Registration(reloadable, loader, this);
        if (closed) {
            return registration;
        }
        registrations.add(registration);
        if (!(refresh.isZero() || refresh.isNegative()) && scheduler == null) {
            period = refresh;
            scheduler = Executors.newSingleThreadScheduledExecutor(task -> {
                // No inherited thread-locals: the deploying thread's could hold on to anything of the server's.
                Thread thread = new Thread(null, task, "sluice-config-refresh (" + app + ")", 0, false);
                thread.setDaemon(true);
                // Not the deploying thread's loader: the thread ends with the runtime, but holds nothing till then.
                thread.setContextClassLoader(null);
                return thread;
            });
            long nanos = refresh.toNanos();
            scheduler.scheduleWithFixedDelay(this::refresh, nanos, nanos, TimeUnit.NANOSECONDS);
        } else if (!(refresh.isZero() || refresh.isNegative()) && !refresh.equals(period)) {
            LOG.log(Level.WARNING, "Sluice (app " + app + "): sluice.config.refresh=" + refresh + " of "
                    + reloadable.describe() + " is ignored; the application refreshes every " + period);
        }
        return registration;
    }

    /** The refresh period in force; zero when nothing refreshes periodically. */
    public synchronized Duration period() {
        return scheduler == null ? Duration.ZERO : period;
    }

    /** Whether the refresh thread still runs (it stops when the runtime closes). */
    public synchronized boolean isRefreshing() {
        return scheduler != null && !scheduler.isTerminated();
    }

    private void refresh() {
        try {
            reload();
        } catch (RuntimeException | Error e) {
            // A failing refresh must not end the schedule (an uncaught throwable would cancel it silently).
            LOG.log(Level.ERROR, "Sluice (app " + app + "): configuration refresh failed", e);
        }
    }

    /**
     * Reloads every reloadable now.
     *
     * @return a summary: one line per reloadable that changed or refused, or {@code unchanged}
     */
    public synchronized String reload() {
        if (closed) {
            return "closed";
        }
        List<String> lines = new ArrayList<>();
        List<String> changed = new ArrayList<>();
        Set<String> changedPolicies = new HashSet<>();
        for (Registration r : registrations) {
            Outcome outcome;
            try {
                outcome = inLoader(r);
            } catch (SluiceConfigException e) {
                metrics.refused();
                String message = e.getMessage();
                if (!message.equals(r.lastRefusal)) {
                    LOG.log(Level.ERROR, "Sluice (app " + app + "): configuration reload refused for "
                            + r.reloadable.describe() + "; its policies stay as they were: " + message);
                }
                r.lastRefusal = message;
                lines.add(r.reloadable.describe() + ": refused, " + message);
                continue;
            }
            r.lastRefusal = null;
            warnNotApplied(r, outcome.notApplied());
            if (!outcome.changes().isEmpty()) {
                outcome.changes().forEach(c -> changedPolicies.add(c.policy()));
                String text = r.reloadable.describe() + ": " + outcome.changes().stream().map(Change::toString)
                        .collect(Collectors.joining(", "));
                changed.add(text);
                lines.add(text);
            }
        }
        if (!changed.isEmpty()) {
            rateLimits.denials().clear();
            rateLimits.returnLocalBudgets(changedPolicies);
            metrics.applied();
            LOG.log(Level.INFO, "Sluice (app " + app + "): policies reloaded; " + String.join("; ", changed));
        }
        return lines.isEmpty() ? "unchanged" : String.join("\n", lines);
    }

    private static Outcome inLoader(Registration r) {
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(r.loader);
        try {
            return r.reloadable.reload();
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    private void warnNotApplied(Registration r, List<String> notApplied) {
        String text = notApplied.isEmpty() ? null : String.join(", ", notApplied);
        if (text != null && !text.equals(r.lastNotApplied)) {
            LOG.log(Level.WARNING, "Sluice (app " + app + "): " + text + " changed for " + r.reloadable.describe()
                    + " but take effect only when the application is redeployed; they were not applied");
        }
        r.lastNotApplied = text;
    }

    /**
     * The policies that differ between two maps by name, sorted by name.
     */
    public static List<Change> changes(Map<String, PolicyConfig> before, Map<String, PolicyConfig> after) {
        List<Change> changes = new ArrayList<>();
        TreeSet<String> names = new TreeSet<>(before.keySet());
        names.addAll(after.keySet());
        for (String name : names) {
            PolicyConfig b = before.get(name);
            PolicyConfig a = after.get(name);
            if (!Objects.equals(a, b)) {
                changes.add(new Change(name, b, a));
            }
        }
        return changes;
    }

    /** The keys read only at deployment whose values differ between {@code deployed} and {@code reread}. */
    public static List<String> notApplied(SluiceConfig deployed, SluiceConfig reread) {
        List<String> keys = new ArrayList<>();
        if (!deployed.redis().equals(reread.redis())) {
            keys.add("sluice.redis.*");
        }
        if (!deployed.keyPrefix().equals(reread.keyPrefix())) {
            keys.add("sluice.key-prefix");
        }
        if (!deployed.scripts().equals(reread.scripts())) {
            keys.add("sluice.script.*");
        }
        if (deployed.headers() != reread.headers()) {
            keys.add("sluice.headers");
        }
        if (!deployed.trustedProxies().equals(reread.trustedProxies())
                || deployed.forwardingHeader() != reread.forwardingHeader()
                || deployed.ipv6Prefix() != reread.ipv6Prefix()
                || !deployed.nat64Prefixes().equals(reread.nat64Prefixes())) {
            keys.add("sluice.trusted-proxies, sluice.forwarding-header, sluice.ipv6-prefix, sluice.nat64-prefixes");
        }
        if (deployed.denyCacheSize() != reread.denyCacheSize()) {
            keys.add("sluice.deny-cache.size");
        }
        if (deployed.filterEnabled() != reread.filterEnabled()) {
            keys.add("sluice.filter.enabled");
        }
        if (!deployed.configRefresh().equals(reread.configRefresh())) {
            keys.add("sluice.config.refresh");
        }
        return keys;
    }

    /** Stops the refresh thread and forgets every reloadable. Idempotent. */
    @Override
    public void close() {
        ScheduledExecutorService s;
        synchronized (this) {
            closed = true;
            registrations.clear();
            s = scheduler;
        }
        metrics.action(null);
        if (s != null) {
            s.shutdownNow();
        }
    }
}
