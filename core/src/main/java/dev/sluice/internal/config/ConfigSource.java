package dev.sluice.internal.config;

import java.util.Optional;
import java.util.Set;

/**
 * Raw key/value lookup behind {@link SluiceConfig}: MicroProfile Config when present, else the
 * fallback chain of the contract; filter init-params are layered on top. Implementations are
 * thread-safe.
 */
public interface ConfigSource {

    /** The value of {@code key}, trimmed; empty when absent or blank. */
    Optional<String> get(String key);

    /** Every known property name starting with {@code sluice.} (used to discover policies). */
    Set<String> names();
}
