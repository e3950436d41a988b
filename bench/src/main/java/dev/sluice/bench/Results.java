package dev.sluice.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Everything one run measured, in the order it was planned. Used by one thread. */
final class Results {

    final Map<Scenario, List<Measurement>> measurements = new LinkedHashMap<>();
    final List<Handoff.Result> handoffs = new ArrayList<>();
    final List<MemoryFootprint.Row> memory = new ArrayList<>();
    WildFlyEndToEnd.Result endToEnd;

    void add(Scenario scenario, Measurement measurement) {
        measurements.computeIfAbsent(scenario, s -> new ArrayList<>()).add(measurement);
    }

    /** One library's summary in one scenario, if it was measured. */
    Optional<Stats.Summary> summary(Scenario scenario, String library) {
        List<Measurement> rounds = measurements.getOrDefault(scenario, List.of()).stream()
                .filter(m -> m.library().equals(library)).toList();
        return rounds.isEmpty() ? Optional.empty() : Optional.of(Stats.summarize(rounds));
    }

    /** Sluice's throughput over {@code library}'s in the same scenario (both measured in the same rounds). */
    Optional<Stats.Estimate> ratio(Scenario scenario, String library) {
        Optional<Stats.Summary> sluice = summary(scenario, Libraries.SLUICE);
        Optional<Stats.Summary> other = summary(scenario, library);
        if (sluice.isEmpty() || other.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(sluice.get().opsPerSecond().over(other.get().opsPerSecond()));
    }

    Optional<Scenario> find(Scenario.Section section, String label, int threads) {
        return measurements.keySet().stream()
                .filter(s -> s.section() == section && s.label().equals(label) && s.threads() == threads)
                .findFirst();
    }

    /** Hand-offs of one library over all rounds: mean of the rounds' percentiles. */
    Optional<double[]> handoff(String library) {
        List<Handoff.Result> rows = handoffs.stream().filter(h -> h.library().equals(library)).toList();
        if (rows.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new double[] {
                rows.stream().mapToLong(Handoff.Result::p50Nanos).average().orElseThrow() / 1000.0,
                rows.stream().mapToLong(Handoff.Result::p99Nanos).average().orElseThrow() / 1000.0,
                rows.stream().mapToDouble(Handoff.Result::perSecond).average().orElseThrow()});
    }
}
