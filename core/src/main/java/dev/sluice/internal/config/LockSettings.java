package dev.sluice.internal.config;

import java.time.Duration;
import java.util.Optional;

/**
 * Overrides from {@code sluice.lock.<name>.*} or {@code sluice.semaphore.<name>.*}; empty fields keep the
 * annotation's (or caller's) values. Immutable.
 */
public record LockSettings(Optional<Duration> lease, Optional<Duration> maxWait, Optional<Integer> permits) {

    public static final LockSettings NONE = new LockSettings(Optional.empty(), Optional.empty(), Optional.empty());
}
