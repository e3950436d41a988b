package dev.sluice.bench;

import java.time.Duration;

/**
 * How long and how often each measurement runs.
 *
 * @param name              {@code quick} or {@code full}
 * @param rounds            times the whole suite is repeated; each round runs every library of a scenario
 *                          back to back (in rotated order), so each pair is measured under the same load of
 *                          this shared machine; each round is one fresh JMH fork per library
 * @param warmups           warm-up iterations per fork
 * @param warmupTime        length of one warm-up iteration
 * @param iterations        measured iterations per fork
 * @param iterationTime     length of one measured iteration
 * @param handoffTime       length of one hand-off latency run per library and round
 * @param overAdmissionTime length of each of the two runs of {@link OverAdmission} (once per run, not per round)
 */
record Plan(String name, int rounds, int warmups, Duration warmupTime, int iterations, Duration iterationTime,
            Duration handoffTime, Duration overAdmissionTime) {

    /** A few minutes: one fork per library and scenario, three measured iterations. For development. */
    static final Plan QUICK = new Plan("quick", 1, 1, Duration.ofSeconds(2), 3, Duration.ofSeconds(1), Duration.ofSeconds(3),
            Duration.ofSeconds(15));

    /** Three rounds (forks) of four measured iterations each: what docs/performance.md is made with. */
    static final Plan FULL = new Plan("full", 3, 1, Duration.ofSeconds(2), 4, Duration.ofSeconds(2), Duration.ofSeconds(8),
            Duration.ofMinutes(1));

    static Plan named(String name) {
        return switch (name) {
            case "quick" -> QUICK;
            case "full" -> FULL;
            default -> throw new IllegalArgumentException("--mode must be quick or full, not " + name);
        };
    }

    String describe() {
        return String.format("%s: %d round(s) x (%d x %ds warm-up + %d x %ds measured) per library and scenario",
                name, rounds, warmups, warmupTime.toSeconds(), iterations, iterationTime.toSeconds());
    }
}
