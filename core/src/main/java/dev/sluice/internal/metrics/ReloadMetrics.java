package dev.sluice.internal.metrics;

import java.util.function.Supplier;

/**
 * The counts of one application's configuration reloads ({@code sluice.config.refresh} and the JMX operation
 * {@code reload()}), and the reload the JMX operation runs.
 *
 * <p>Thread-safe.
 */
public final class ReloadMetrics {

    /** What {@link #reload()} answers while the application has nothing to reload. */
    static final String NOTHING = "nothing to reload";

    final Counter applied = new Counter();
    final Counter refused = new Counter();
    private volatile Supplier<String> action;

    ReloadMetrics() {
    }

    /** Counts a reload that changed at least one policy. */
    public void applied() {
        applied.increment();
    }

    /** Counts a reload that was refused because a new value was bad (the old policies stayed). */
    public void refused() {
        refused.increment();
    }

    public long appliedCount() {
        return applied.count();
    }

    public long refusedCount() {
        return refused.count();
    }

    /** Sets what {@link #reload()} runs; {@code null} when the application's runtime closes. */
    public void action(Supplier<String> reload) {
        action = reload;
    }

    /** Reloads the application's policies now; a summary of what changed, or why nothing did. */
    public String reload() {
        Supplier<String> a = action;
        return a == null ? NOTHING : a.get();
    }
}
