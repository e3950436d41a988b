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
    final List<MemoryFootprint.KeyLengthRow> memoryByKeyLength = new ArrayList<>();
    final List<Flood.Run> floods = new ArrayList<>();
    /** The over-admission runs of local budgets: with a budget, then without. */
    final List<OverAdmission.Run> overAdmissions = new ArrayList<>();
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

    /** {@code library}'s throughput over {@code over}'s in the same scenario. */
    Optional<Stats.Estimate> ratio(Scenario scenario, String library, String over) {
        Optional<Stats.Summary> a = summary(scenario, library);
        Optional<Stats.Summary> b = summary(scenario, over);
        if (a.isEmpty() || b.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(a.get().opsPerSecond().over(b.get().opsPerSecond()));
    }

    /** The over-admission run with ({@code true}) or without a local budget. */
    Optional<OverAdmission.Run> overAdmission(boolean budget) {
        return overAdmissions.stream().filter(r -> !r.localBudget().equals("0") == budget).findFirst();
    }

    Optional<Scenario> find(Scenario.Section section, String label, int threads) {
        return measurements.keySet().stream()
                .filter(s -> s.section() == section && s.label().equals(label) && s.threads() == threads)
                .findFirst();
    }

    /** One flood variant over all rounds, in round order. */
    List<Flood.Run> flood(Flood.Variant variant) {
        return floods.stream().filter(r -> r.variant() == variant).toList();
    }

    /**
     * The served clients' p99 with the flood (deny cache on) over without it, per round (both measured back to
     * back in the same round), then their mean with a 95% interval over rounds ({@code NaN} from one round).
     */
    Optional<Stats.Estimate> floodP99Ratio() {
        List<Double> ratios = new ArrayList<>();
        for (Flood.Run flooded : flood(Flood.Variant.FLOOD)) {
            flood(Flood.Variant.QUIET).stream().filter(q -> q.round() == flooded.round()).findFirst()
                    .ifPresent(quiet -> ratios.add(flooded.servedP99Nanos() / (double) quiet.servedP99Nanos()));
        }
        return ratios.isEmpty() ? Optional.empty() : Optional.of(Stats.mean(ratios));
    }

    /**
     * Redis calls for the flooded key (deny cache on) per cached denial window (the denial window, at most a deny-cache
     * entry's life), the largest over the rounds.
     */
    Optional<Stats.Estimate> floodCallsPerWindow() {
        return flood(Flood.Variant.FLOOD).stream()
                .mapToDouble(r -> r.floodRedisCalls()
                        / Math.max(1.0, Math.ceil(r.seconds() * 1000 / Flood.CACHED_WINDOW.toMillis())))
                .max().stream().mapToObj(v -> new Stats.Estimate(v, Double.NaN)).findFirst();
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
