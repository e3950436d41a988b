package dev.sluice.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;

/**
 * End to end on WildFly: the plain-WAR sample's trivial JAX-RS endpoint loaded by {@code wrk} on loopback, with
 * Sluice's filter (a limit never reached) and without; reported as the requests/s ratio, the added p99 and the CPU
 * each process spends per request.
 *
 * <p>The measurement is {@code bench/e2e.sh} (it provisions WildFly through the ear-sample build, starts its own
 * {@code redis-server}, restarts WildFly for every run and alternates the variants round by round); this class runs
 * it with the plan's rounds and durations and reads the per-run lines it writes to
 * {@code ear-sample/it/target/e2e-bench/results/summary.txt}.
 */
final class WildFlyEndToEnd {

    /** One wrk run: {@code variant} is {@code with} or {@code without} the filter. */
    record Run(int round, String variant, double requestsPerSecond, double p99Micros, double wildflyCpuMicros,
               double redisCpuMicros, double wrkCpuMicros) {
    }

    /** One round: the two variants measured back to back. */
    record Round(Run with, Run without) {
        double ratio() {
            return with.requestsPerSecond() / without.requestsPerSecond();
        }

        double addedP99Micros() {
            return with.p99Micros() - without.p99Micros();
        }
    }

    /** The outcome: the rounds measured, or the reason there are none. */
    record Result(Optional<String> skipped, List<Round> rounds, String setup) {

        Stats.Estimate ratio() {
            return meanAndSd(rounds.stream().mapToDouble(Round::ratio).toArray());
        }

        Stats.Estimate addedP99Millis() {
            return meanAndSd(rounds.stream().mapToDouble(r -> r.addedP99Micros() / 1000).toArray());
        }

        Stats.Estimate mean(boolean withFilter, ToDoubleFunction<Run> value) {
            return meanAndSd(rounds.stream().map(r -> withFilter ? r.with() : r.without()).mapToDouble(value).toArray());
        }
    }

    private final Path repository;

    WildFlyEndToEnd(Path repository) {
        this.repository = repository;
    }

    Result run(Plan plan) throws IOException, InterruptedException {
        for (String tool : List.of("wrk", "curl")) {
            if (!onPath(tool)) {
                return skipped(tool + " is not installed (apt-get install wrk curl)");
            }
        }
        boolean full = plan.name().equals("full");
        int rounds = full ? 3 : 1;
        String warmup = full ? "20s" : "10s";
        String duration = full ? "20s" : "10s";
        ProcessBuilder builder = new ProcessBuilder("bash", repository.resolve("bench/e2e.sh").toString())
                .directory(repository.toFile()).inheritIO();
        builder.environment().putAll(Map.of("SLUICE_E2E_ROUNDS", String.valueOf(rounds), "SLUICE_E2E_WARMUP", warmup,
                "SLUICE_E2E_DURATION", duration));
        int exit = builder.start().waitFor();
        if (exit != 0) {
            return skipped("bench/e2e.sh failed with exit code " + exit + " (its output is above)");
        }
        List<Round> measured = parse(Files.readAllLines(repository.resolve(
                "ear-sample/it/target/e2e-bench/results/summary.txt")));
        String wildfly;
        try (var dirs = Files.list(repository.resolve("ear-sample/it/target"))) {
            wildfly = dirs.map(d -> d.getFileName().toString()).filter(n -> n.startsWith("wildfly-")).findFirst()
                    .map(n -> "WildFly " + n.substring("wildfly-".length())).orElse("WildFly");
        }
        String setup = String.format(Locale.ROOT, "%s serving the plain WAR's `GET /sample-plain/api/hello`, loaded by "
                + "`wrk -t2 -c32 -d%s --latency` on 127.0.0.1 after a %s warm-up, %d round(s)", wildfly, duration, warmup,
                rounds);
        return new Result(Optional.empty(), measured, setup);
    }

    /** The lines of e2e.sh's summary: round, variant, requests/s, p99 µs, CPU µs per request of WildFly, Redis, wrk. */
    static List<Round> parse(List<String> lines) {
        Map<Integer, Run[]> byRound = new TreeMap<>();
        for (String line : lines) {
            String[] f = line.trim().split("\\s+");
            if (f.length != 7) {
                continue;
            }
            Run run = new Run(Integer.parseInt(f[0]), f[1], Double.parseDouble(f[2]), Double.parseDouble(f[3]),
                    Double.parseDouble(f[4]), Double.parseDouble(f[5]), Double.parseDouble(f[6]));
            byRound.computeIfAbsent(run.round(), r -> new Run[2])[run.variant().equals("with") ? 0 : 1] = run;
        }
        List<Round> rounds = new ArrayList<>();
        for (Run[] pair : byRound.values()) {
            if (pair[0] != null && pair[1] != null) {
                rounds.add(new Round(pair[0], pair[1]));
            }
        }
        return rounds;
    }

    private static Stats.Estimate meanAndSd(double[] values) {
        double mean = 0;
        for (double v : values) {
            mean += v / values.length;
        }
        if (values.length < 2) {
            return new Stats.Estimate(mean, Double.NaN);
        }
        double squares = 0;
        for (double v : values) {
            squares += (v - mean) * (v - mean);
        }
        return new Stats.Estimate(mean, Math.sqrt(squares / (values.length - 1)));
    }

    private static Result skipped(String reason) {
        return new Result(Optional.of(reason), List.of(), "");
    }

    private static boolean onPath(String command) {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String dir : path.split(java.io.File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, command))) {
                return true;
            }
        }
        return false;
    }
}
