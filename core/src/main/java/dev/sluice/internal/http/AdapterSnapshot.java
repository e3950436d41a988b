package dev.sluice.internal.http;

import dev.sluice.internal.runtime.ConfigReloads;

import java.util.List;
import java.util.Set;

/**
 * What one adapter's requests read, built whole from one configuration and replaced whole by a reload
 * ({@link AdapterLifecycle}): the servlet filter's {@link PathPolicies}, the JAX-RS feature's
 * {@link MethodLimits}, the programmatic limiters' policies. Implementations are immutable, and equal when they
 * apply the same policies: a reload swaps a snapshot only for one that is not equal to it.
 *
 * @param <S> the implementing type
 */
public interface AdapterSnapshot<S extends AdapterSnapshot<S>> {

    /** The policies this snapshot applies differently from {@code before}, as a reload reports them. */
    List<ConfigReloads.Change> changesFrom(S before);

    /** The names of the policies it applies, registered as metric names (inline policies are in no configuration). */
    Set<String> policyNames();
}
