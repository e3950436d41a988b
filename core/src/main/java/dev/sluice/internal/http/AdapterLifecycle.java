package dev.sluice.internal.http;

import dev.sluice.internal.metrics.Kind;
import dev.sluice.internal.runtime.ConfigReloads;
import dev.sluice.internal.runtime.Reloadable;
import dev.sluice.internal.runtime.SluiceRuntime;
import dev.sluice.internal.runtime.SluiceRuntimes;

import java.lang.System.Logger.Level;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The life of one adapter (the servlet filter, the JAX-RS feature, the CDI extension) in its application: it
 * takes the application's runtime (shared by every adapter of the application, closed with its last user),
 * builds the adapter's first snapshot from the validated configuration through the adapter's
 * {@link Snapshots} function, registers the reload ({@code sluice.config.refresh}, JMX {@code reload()}) that
 * reads the settings again, builds the next snapshot and swaps it in, and on {@link #close()} lets go of all of
 * it. A reload validates everything before it swaps: a bad value throws out of the reload, which
 * {@link ConfigReloads} counts and logs, and the old snapshot stays.
 *
 * <p>A request reads {@link #current()}, one volatile read, and finds in it the snapshot, the gate and the
 * client-address rules it decides with; null before {@link #start} and after {@link #close()}.
 *
 * <p>Thread-safe: {@link #start}, {@link #update}, reloads and {@link #close()} are serialized on this object.
 *
 * @param <S> the adapter's snapshot
 */
public final class AdapterLifecycle<S extends AdapterSnapshot<S>> implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger("dev.sluice");

    /**
     * How an adapter builds its snapshot from one validated configuration.
     *
     * @param <S> the adapter's snapshot
     */
    @FunctionalInterface
    public interface Snapshots<S> {

        /**
         * @param before the snapshot in force, which a reload replaces; null for the first
         * @throws dev.sluice.SluiceConfigException when the configuration does not fit the adapter
         */
        S build(AdapterConfig config, S before);
    }

    /**
     * What a request decides with: the adapter's snapshot, the gate over the runtime and the client-address
     * rules, all read at deployment but the snapshot.
     *
     * @param <S> the adapter's snapshot
     */
    public record Current<S>(S snapshot, RateLimitGate gate, ClientAddress clientAddress, SluiceRuntime runtime) {

        Current<S> with(S next) {
            return new Current<>(next, gate, clientAddress, runtime);
        }
    }

    private volatile Current<S> current;
    private AdapterSettings settings;
    private AdapterConfig deployed;
    private Snapshots<S> snapshots;
    private AutoCloseable reloadRegistration;
    /** Whether {@link #close()} releases the runtime: false for one the caller gave, which the caller closes. */
    private boolean owned;

    /** An adapter's lifecycle, not started: {@link #current()} is null. */
    public AdapterLifecycle() {
    }

    /**
     * Acquires the application's runtime, builds the first snapshot and registers the reload, which reads
     * {@code settings} again.
     *
     * @param config   {@code settings} as read at deployment (the adapter decided from it to start)
     * @param describe how logs name the adapter: {@code servlet filter 'sluice' in /shop/}
     * @throws dev.sluice.SluiceConfigException when the first snapshot cannot be built; nothing stays acquired
     * @throws dev.sluice.SluiceException when the runtime cannot start
     * @throws IllegalStateException when started already
     */
    public synchronized void start(AdapterSettings settings, AdapterConfig config, String describe, Snapshots<S> snapshots) {
        refuseRestart();
        SluiceRuntime runtime = SluiceRuntimes.acquire(settings.loader(), config.config());
        try {
            begin(runtime, config, snapshots, true);
            this.settings = settings;
            reloadRegistration = runtime.reloads().register(new Reloadable() {
                @Override
                public String describe() {
                    return describe;
                }

                @Override
                public ConfigReloads.Outcome reload() {
                    return AdapterLifecycle.this.reload();
                }
            }, settings.loader(), config.config().configRefresh());
        } catch (RuntimeException | Error e) {
            current = null;
            this.snapshots = null;
            owned = false;
            SluiceRuntimes.release(runtime);
            throw e;
        }
    }

    /**
     * Starts over a runtime the caller built and closes (tests, embedded use): nothing is acquired, released or
     * reloaded.
     */
    public synchronized void startOver(SluiceRuntime runtime, AdapterConfig config, Snapshots<S> snapshots) {
        refuseRestart();
        begin(runtime, config, snapshots, false);
    }

    /** One start per lifecycle: an adapter instance is not started again once closed (servlet filters are not). */
    private void refuseRestart() {
        if (this.snapshots != null) {
            throw new IllegalStateException("started already");
        }
    }

    private void begin(SluiceRuntime runtime, AdapterConfig config, Snapshots<S> snapshots, boolean owns) {
        S first = snapshots.build(config, null);
        registerNames(runtime, first);
        this.snapshots = snapshots;
        this.deployed = config;
        this.owned = owns;
        current = new Current<>(first, RateLimitGate.of(runtime, config.config().headers()), ClientAddress.of(config.config()),
                runtime);
    }

    /** What a request decides with now; null before {@link #start} and after {@link #close()}. One volatile read. */
    public Current<S> current() {
        return current;
    }

    /**
     * Replaces the snapshot with {@code change} of it while the adapter is still deploying (a JAX-RS resource
     * method configured after the first).
     *
     * @return the snapshot now in force
     * @throws IllegalStateException when not started or closed
     */
    public synchronized S update(UnaryOperator<S> change) {
        Current<S> c = current;
        if (c == null) {
            throw new IllegalStateException("not started, or closed");
        }
        S next = change.apply(c.snapshot());
        registerNames(c.runtime(), next);
        current = c.with(next);
        return next;
    }

    /**
     * Reads the settings again and, when the snapshot built from them differs from the one in force, swaps it;
     * a bad value throws before anything is swapped. The build runs outside the lock, so a slow read does not
     * hold up {@link #close()}; a snapshot that changed meanwhile (closed, or updated) is left as it is.
     */
    ConfigReloads.Outcome reload() {
        Current<S> before = current;
        if (before == null) {
            return ConfigReloads.Outcome.NONE;
        }
        AdapterConfig reread = settings.read();
        S next = snapshots.build(reread, before.snapshot());
        List<ConfigReloads.Change> changes = next.changesFrom(before.snapshot());
        if (!next.equals(before.snapshot())) {
            synchronized (this) {
                if (current != before) {
                    return ConfigReloads.Outcome.NONE;
                }
                before.runtime().metrics().register(reread.config());
                registerNames(before.runtime(), next);
                current = before.with(next);
            }
        }
        return new ConfigReloads.Outcome(changes, ConfigReloads.notApplied(deployed.config(), reread.config()));
    }

    private static void registerNames(SluiceRuntime runtime, AdapterSnapshot<?> snapshot) {
        snapshot.policyNames().forEach(name -> runtime.metrics().register(Kind.RATE_LIMIT, name));
    }

    /** Stops reloading and lets go of the runtime; the last user of an application's runtime closes it. Idempotent. */
    @Override
    public void close() {
        Current<S> was;
        AutoCloseable registration;
        boolean release;
        synchronized (this) {
            was = current;
            current = null;
            registration = reloadRegistration;
            reloadRegistration = null;
            release = owned;
            owned = false;
        }
        if (registration != null) {
            try {
                registration.close();
            } catch (Exception e) {
                LOG.log(Level.DEBUG, "Sluice: could not stop reloading a closed adapter", e);
            }
        }
        if (was != null && release) {
            SluiceRuntimes.release(was.runtime());
        }
    }
}
