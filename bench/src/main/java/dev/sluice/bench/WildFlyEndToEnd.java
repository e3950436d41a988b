package dev.sluice.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IntSummaryStatistics;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;

/**
 * End to end on WildFly: the plain-WAR sample's trivial JAX-RS endpoint loaded by {@code wrk} on loopback, without a
 * rate-limit filter, with Sluice's filter and with a Bucket4j filter (a limit never reached), from one client address
 * and from many; reported as requests/s ratios, the added p99 at a paced load and the CPU each process spends per
 * request.
 *
 * <p>The measurement is {@code bench/e2e.sh} (it provisions WildFly through the ear-sample build, starts its own
 * {@code redis-server}, restarts WildFly for every run and rotates the variants' order round by round); this class
 * runs it with the plan's rounds and durations and reads the per-run lines it writes to
 * {@code ear-sample/it/target/e2e-bench/results/summary.txt}.
 */
final class WildFlyEndToEnd {

    /** No rate-limit filter. */
    static final String WITHOUT = "without";
    /** Sluice's filter, one client address. */
    static final String SLUICE = "with";
    /** The Bucket4j filter, one client address. */
    static final String BUCKET4J = "bucket4j";
    /** Sluice's filter, many client addresses forwarded by a trusted loopback proxy. */
    static final String SLUICE_MANY = "with-xff";
    /** The Bucket4j filter, the same requests, WildFly's proxy-address-forwarding on. */
    static final String BUCKET4J_MANY = "bucket4j-xff";
    /** Sluice's filter, one client address, its policy with a local budget ({@code local-budget=50ms}). */
    static final String SLUICE_BUDGET = "with-budget";
    /**
     * A reference, not a peer: one {@code EVALSHA} of Sluice's script per request through Jedis and nothing else,
     * one client address. What asking Redis once per request costs WildFly on the host.
     */
    static final String EVALSHA = "evalsha";
    /** The variants in the order of the report's table. */
    static final List<String> VARIANTS = List.of(WITHOUT, SLUICE, SLUICE_BUDGET, BUCKET4J, SLUICE_MANY, BUCKET4J_MANY,
            EVALSHA);

    /**
     * One run of one variant: requests/s and the CPU µs per request of each process at saturation, p99 µs and
     * requests/s of the paced latency run.
     */
    record Run(int round, String variant, double requestsPerSecond, double p99Micros, double wildflyCpuMicros,
               double redisCpuMicros, double wrkCpuMicros, double pacedRequestsPerSecond) {
    }

    /** One round: every variant measured once, WildFly restarted in between. */
    record Round(int number, Map<String, Run> runs) {
        boolean has(String... variants) {
            for (String v : variants) {
                if (!runs.containsKey(v)) {
                    return false;
                }
            }
            return true;
        }

        double ratio(String variant, String over) {
            return runs.get(variant).requestsPerSecond() / runs.get(over).requestsPerSecond();
        }

        double addedP99Micros() {
            return runs.get(SLUICE).p99Micros() - runs.get(WITHOUT).p99Micros();
        }

        double addedWildflyCpuMicros() {
            return addedWildflyCpuMicros(SLUICE);
        }

        double addedWildflyCpuMicros(String variant) {
            return runs.get(variant).wildflyCpuMicros() - runs.get(WITHOUT).wildflyCpuMicros();
        }
    }

    /** The outcome: the rounds measured, or the reason there are none. */
    record Result(Optional<String> skipped, List<Round> rounds, String setup) {

        /** Requests/s of {@code variant} over {@code over}, per round; empty when a round lacks either. */
        Optional<Stats.Estimate> ratio(String variant, String over) {
            return per(r -> r.ratio(variant, over), variant, over);
        }

        Optional<Stats.Estimate> addedP99Millis() {
            return per(r -> r.addedP99Micros() / 1000, SLUICE, WITHOUT);
        }

        Optional<Stats.Estimate> addedWildflyCpuMicros() {
            return per(Round::addedWildflyCpuMicros, SLUICE, WITHOUT);
        }

        boolean measured(String variant) {
            return !rounds.isEmpty() && rounds.stream().allMatch(r -> r.has(variant));
        }

        Stats.Estimate mean(String variant, ToDoubleFunction<Run> value) {
            return meanAndSd(rounds.stream().map(r -> r.runs().get(variant)).mapToDouble(value).toArray());
        }

        private Optional<Stats.Estimate> per(ToDoubleFunction<Round> value, String... variants) {
            if (skipped.isPresent() || rounds.isEmpty() || !rounds.stream().allMatch(r -> r.has(variants))) {
                return Optional.empty();
            }
            return Optional.of(meanAndSd(rounds.stream().mapToDouble(value).toArray()));
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
        // At least 20 s, then e2e.sh goes on in 10 s steps until the JIT compiler is quiet: on a 2-CPU host it took
        // most of a core for 60 to 140 s of load, and a measurement during that charged each variant for compiling
        // its code (more for more code) instead of for running it.
        String warmup = "20s";
        String duration = full ? "15s" : "10s";
        String latencyDuration = "10s";
        ProcessBuilder builder = new ProcessBuilder("bash", repository.resolve("bench/e2e.sh").toString())
                .directory(repository.toFile()).inheritIO();
        builder.environment().putAll(Map.of("SLUICE_E2E_ROUNDS", String.valueOf(rounds), "SLUICE_E2E_WARMUP", warmup,
                "SLUICE_E2E_DURATION", duration, "SLUICE_E2E_LATENCY_DURATION", latencyDuration));
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
        String setup = String.format(Locale.ROOT, "%s serving the plain WAR's `GET /sample-plain/api/hello` on "
                + "127.0.0.1, %d round(s); per run: a warm-up at saturation until WildFly's JIT compiler has settled "
                + "(under 1 s of compilation in the last 10 s of load; %s), the measured %s at saturation "
                + "(`wrk -t2 -c32`), then %s paced to about 500 requests/s (`wrk -t1 -c5`, each connection waiting 10 ms "
                + "after a response) for the p99", wildfly, rounds,
                warmups(repository.resolve("ear-sample/it/target/e2e-bench/results/warmups.txt")), duration,
                latencyDuration);
        return new Result(Optional.empty(), measured, setup);
    }

    /**
     * The lines of e2e.sh's summary: round, variant, requests/s, p99 µs, CPU µs per request of WildFly, Redis, wrk,
     * and the paced run's requests/s.
     */
    static List<Round> parse(List<String> lines) {
        Map<Integer, Map<String, Run>> byRound = new TreeMap<>();
        for (String line : lines) {
            String[] f = line.trim().split("\\s+");
            if (f.length != 8) {
                continue;
            }
            Run run = new Run(Integer.parseInt(f[0]), f[1], Double.parseDouble(f[2]), Double.parseDouble(f[3]),
                    Double.parseDouble(f[4]), Double.parseDouble(f[5]), Double.parseDouble(f[6]), Double.parseDouble(f[7]));
            byRound.computeIfAbsent(run.round(), r -> new TreeMap<>()).put(run.variant(), run);
        }
        List<Round> rounds = new ArrayList<>();
        byRound.forEach((number, runs) -> rounds.add(new Round(number, Map.copyOf(runs))));
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

    /** How long the warm-ups lasted, as "20 to 90 s", from e2e.sh's warmups.txt (round, variant, seconds). */
    private static String warmups(Path file) throws IOException {
        if (!Files.exists(file)) {
            return "its length unrecorded";
        }
        IntSummaryStatistics seconds = Files.readAllLines(file).stream().map(l -> l.trim().split("\\s+"))
                .filter(f -> f.length == 3).mapToInt(f -> Integer.parseInt(f[2])).summaryStatistics();
        if (seconds.getCount() == 0) {
            return "its length unrecorded";
        }
        return seconds.getMin() == seconds.getMax() ? seconds.getMin() + " s"
                : seconds.getMin() + " to " + seconds.getMax() + " s";
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
