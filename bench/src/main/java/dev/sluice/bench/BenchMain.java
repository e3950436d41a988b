package dev.sluice.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The one benchmark command: starts a private {@code redis-server}, runs every comparison round by round
 * (each library of a scenario back to back, so the ratios compare runs made under the same conditions),
 * prints the table and rewrites the generated part of {@code docs/performance.md} and its chart.
 *
 * <p>Arguments: {@code --mode quick|full}, {@code --docs <dir>}, optionally {@code --only
 * rate,lock,semaphore,concurrency,handoff,flood,budget,memory,e2e}, {@code --libraries
 * sluice,sluice-budget,bucket4j,redisson,redis-benchmark,redis-benchmark-P16} and
 * {@code --threads 1,8,32} (development aids: the docs are then left alone), {@code --gc-profiler} (prints
 * the bytes allocated per operation) and
 * {@code --fork-arg <jvm option>} (repeatable, e.g. a JFR recording for every fork).
 */
public final class BenchMain {

    private static final List<String> RATE_LIBRARIES = List.of(Libraries.SLUICE, Libraries.BUCKET4J, Libraries.REDISSON,
            Libraries.RAW_EVALSHA, Libraries.CEILING);
    private static final List<String> LOCK_LIBRARIES = List.of(Libraries.SLUICE, Libraries.REDISSON);
    private static final List<String> UNCONTENDED_LOCK_LIBRARIES = List.of(Libraries.SLUICE, Libraries.REDISSON, Libraries.LOCK_FLOOR);
    private static final List<String> CONCURRENCY_LIBRARIES = List.of(Libraries.SLUICE, Libraries.REDISSON);
    private static final Set<String> PARTS = new LinkedHashSet<>(List.of("rate", "lock", "semaphore", "concurrency",
            "handoff", "flood", "budget", "memory", "e2e"));

    private BenchMain() {
    }

    public static void main(String[] args) throws Exception {
        Plan plan = Plan.QUICK;
        Path docs = Path.of("docs");
        Set<String> only = new LinkedHashSet<>(PARTS);
        boolean partial = false;
        List<String> forkArgs = new ArrayList<>();
        Set<String> libraries = null;
        Set<Integer> threadCounts = null;
        boolean gcProfiler = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--mode" -> plan = Plan.named(args[++i]);
                case "--docs" -> docs = Path.of(args[++i]);
                case "--only" -> {
                    only = new LinkedHashSet<>(Arrays.asList(args[++i].split(",")));
                    if (!PARTS.containsAll(only)) {
                        throw new IllegalArgumentException("--only takes some of " + PARTS + ", not " + only);
                    }
                    partial = true;
                }
                case "--fork-arg" -> forkArgs.add(args[++i]);
                case "--gc-profiler" -> gcProfiler = true;
                case "--threads" -> {
                    threadCounts = new LinkedHashSet<>();
                    for (String t : args[++i].split(",")) {
                        threadCounts.add(Integer.parseInt(t));
                    }
                    partial = true;
                }
                case "--libraries" -> {
                    libraries = new LinkedHashSet<>(Arrays.asList(args[++i].split(",")));
                    partial = true;
                }
                default -> throw new IllegalArgumentException("unknown argument " + args[i]
                        + "; usage: --mode quick|full --docs <dir> [--only " + String.join(",", PARTS) + "] [--libraries ...] [--threads ...] [--gc-profiler] [--fork-arg <jvm option>]");
            }
        }
        long started = System.nanoTime();
        Results results = new Results();
        Set<Integer> wantedThreads = threadCounts;
        List<Scenario> scenarios = scenarios(only, libraries).stream()
                .filter(s -> wantedThreads == null || wantedThreads.contains(s.threads())).toList();
        System.out.println("Sluice benchmarks, " + plan.describe());
        try (PrivateRedis redis = PrivateRedis.start()) {
            System.out.println("redis-server " + redis.version() + " on " + redis.uri());
            Pinning pinning = Pinning.detect();
            System.out.println("CPU pinning: " + pinning.describe());
            JmhRunner jmh = new JmhRunner(plan, redis.uri(), forkArgs, gcProfiler, pinning);
            RedisBenchmarkRunner ceiling = new RedisBenchmarkRunner(redis, plan, pinning);
            int runs = plan.rounds() * scenarios.stream().mapToInt(s -> s.libraries().size()).sum();
            int done = 0;
            for (int round = 1; round <= plan.rounds(); round++) {
                for (Scenario scenario : scenarios) {
                    for (String library : rotate(scenario.libraries(), round - 1)) {
                        redis.flush();
                        Measurement m;
                        try (AutoCloseable pinned = pinning.applies(scenario) ? pinning.pinRedis(redis) : () -> { }) {
                            m = RedisBenchmarkRunner.runs(library) ? ceiling.run(scenario, library, round)
                                    : jmh.run(scenario, library, round);
                        }
                        results.add(scenario, m);
                        done++;
                        System.out.printf(Locale.ROOT, "[%d/%d %s] round %d %-40s %-16s %,10.0f ops/s  p50 %6.0f µs  p99 %6.0f µs"
                                        + "  CPU/op client %5.1f µs, Redis %5.1f µs%n",
                                done, runs, elapsed(started), round, scenario.id(), library,
                                Arrays.stream(m.opsPerSecond()).average().orElse(Double.NaN),
                                m.p50Nanos() / 1000.0, m.p99Nanos() / 1000.0, m.clientCpuMicrosPerOp(), m.redisCpuMicrosPerOp());
                        System.out.printf(Locale.ROOT, "    iterations (ops/s): %s%n", Arrays.stream(m.opsPerSecond())
                                .mapToObj(x -> String.format(Locale.ROOT, "%,.0f", x)).collect(Collectors.joining(", ")));
                        if (!Double.isNaN(m.admittedShare())) {
                            System.out.printf(Locale.ROOT, "    %.1f%% of the decisions admitted%n", 100 * m.admittedShare());
                        }
                    }
                }
                if (only.contains("handoff")) {
                    for (String library : rotate(select(LOCK_LIBRARIES, libraries), round - 1)) {
                        redis.flush();
                        Handoff.Result h = Handoff.measure(library, round, () -> LockClient.open(library, redis.uri()),
                                plan.warmupTime(), plan.handoffTime());
                        results.handoffs.add(h);
                        System.out.printf(Locale.ROOT, "[%s] round %d lock hand-off between nodes %-10s %,8.0f/s  p50 %6.0f µs  p99 %6.0f µs%n",
                                elapsed(started), round, library, h.perSecond(), h.p50Nanos() / 1000.0, h.p99Nanos() / 1000.0);
                    }
                }
                if (only.contains("flood") && (libraries == null || libraries.contains(Libraries.SLUICE))) {
                    Flood flood = new Flood(redis);
                    for (Flood.Variant variant : rotate(List.of(Flood.Variant.values()), round - 1)) {
                        Flood.Run r = flood.run(variant, round, plan.warmupTime(), plan.handoffTime());
                        results.floods.add(r);
                        System.out.printf(Locale.ROOT, "[%s] round %d flood: %-32s served %,8.0f/s p50 %5.0f µs p99 %6.0f µs;"
                                        + " flooder %,10.0f/s, Redis calls for its key %,d (engine: %,d) in %.0f s%n",
                                elapsed(started), round, variant.label, r.servedPerSecond(), r.servedP50Nanos() / 1000.0,
                                r.servedP99Nanos() / 1000.0, r.floodPerSecond(), r.floodRedisCalls(), r.floodRedisCallsByEngine(),
                                r.seconds());
                    }
                }
            }
            if (only.contains("budget") && (libraries == null || libraries.contains(Libraries.SLUICE_BUDGET))) {
                OverAdmission overAdmission = new OverAdmission(redis);
                for (String localBudget : List.of(OverAdmission.AGE, "0")) {
                    OverAdmission.Run r = overAdmission.run(localBudget, plan.overAdmissionTime());
                    results.overAdmissions.add(r);
                    System.out.printf(Locale.ROOT, "[%s] over-admission, %d nodes at twice the limit, local-budget=%s:"
                                    + " %,d admitted of a limit of %,d (%.3f) in %.0f s, %,d refused, %,d Redis calls;"
                                    + " worst window (%.0f ms) %+d beyond its limit, bound %d%n",
                            elapsed(started), OverAdmission.NODES, localBudget, r.admitted(), r.limit(),
                            r.admittedOverLimit(), r.seconds(), r.refused(), r.redisCalls(), r.worstWindowMillis(),
                            r.worstBeyond(), r.bound());
                }
            }
            if (only.contains("memory")) {
                MemoryFootprint footprint = new MemoryFootprint(redis);
                results.memory.addAll(footprint.measure(select(List.of(Libraries.SLUICE, Libraries.BUCKET4J, Libraries.REDISSON), libraries)));
                if (libraries == null || libraries.contains(Libraries.SLUICE)) {
                    results.memoryByKeyLength.addAll(footprint.byKeyLength());
                }
                System.out.println("[" + elapsed(started) + "] memory measured");
            }
            Path repository = docs.toAbsolutePath().getParent();
            if (only.contains("e2e")) {
                results.endToEnd = new WildFlyEndToEnd(repository).run(plan);
            }
            Duration elapsed = Duration.ofNanos(System.nanoTime() - started);
            Environment environment = Environment.describe(plan, redis.version(), repository, elapsed, pinning);
            Report report = new Report(results, environment, "performance.png");
            System.out.println();
            System.out.println(environment.text());
            System.out.println(report.mainTable());
            System.out.println(report.targetTable());
            System.out.println(report.handoffTable());
            System.out.println(report.concurrencyNote());
            System.out.println(report.floodTable());
            System.out.println(report.overAdmissionTable());
            System.out.println(report.memoryTable());
            System.out.println(report.endToEnd());
            if (partial) {
                System.out.println("(--only given: docs/performance.md and its chart left as they were)");
            } else {
                Files.createDirectories(docs);
                new Chart(results).write(docs.resolve("performance.png"), "Loopback Redis " + redis.version()
                        + ", " + Runtime.getRuntime().availableProcessors() + " cores, " + plan.name() + " run, "
                        + environment.date() + "; error bars: 95% confidence interval");
                report.writeInto(docs.resolve("performance.md"));
                System.out.println("Wrote " + docs.resolve("performance.md") + " and " + docs.resolve("performance.png"));
            }
        }
    }

    /** Every comparison, in the order each round runs them. */
    static List<Scenario> scenarios(Set<String> only, Set<String> libraries) {
        List<String> rate = select(RATE_LIBRARIES, libraries);
        List<String> lock = select(LOCK_LIBRARIES, libraries);
        List<String> uncontendedLock = select(UNCONTENDED_LOCK_LIBRARIES, libraries);
        List<Scenario> scenarios = new ArrayList<>();
        if (only.contains("rate")) {
            for (String keys : List.of("hot", "distinct")) {
                for (int threads : new int[] {1, 8, 32}) {
                    scenarios.add(new Scenario(Scenario.Section.RATE_LIMIT, Map.of("keys", keys),
                            keys.equals("hot") ? "one hot key" : "100,000 keys", threads,
                            keys.equals("hot") ? withBudget(threads == 32 ? withPipelinedCeiling(rate, libraries) : rate,
                                    libraries) : rate));
                }
            }
        }
        if (only.contains("lock")) {
            for (int threads : new int[] {1, 8, 32}) {
                scenarios.add(new Scenario(Scenario.Section.LOCK, Map.of("keys", "per-thread"), "key per thread", threads, uncontendedLock));
            }
            for (int threads : new int[] {8, 32}) {
                scenarios.add(new Scenario(Scenario.Section.LOCK, Map.of("keys", "one"), "one key", threads, lock));
            }
        }
        if (only.contains("semaphore")) {
            for (int threads : new int[] {1, 8, 32}) {
                scenarios.add(new Scenario(Scenario.Section.SEMAPHORE, Map.of("permits", "64"), "64 permits", threads, lock));
            }
            scenarios.add(new Scenario(Scenario.Section.SEMAPHORE, Map.of("permits", "4"), "4 permits", 32, lock));
        }
        if (only.contains("concurrency")) {
            List<String> concurrency = select(CONCURRENCY_LIBRARIES, libraries);
            for (int threads : new int[] {1, 8, 32}) {
                scenarios.add(new Scenario(Scenario.Section.CONCURRENCY, Map.of("permits", "64"), "64 permits, never exhausted",
                        threads, concurrency));
            }
            scenarios.add(new Scenario(Scenario.Section.CONCURRENCY, Map.of("permits", "4"), "4 permits", 32, concurrency));
        }
        return scenarios;
    }

    /** The pipelined ceiling is measured where it is a target: the hot key at 32 connections. */
    private static List<String> withPipelinedCeiling(List<String> rate, Set<String> libraries) {
        if (libraries != null && !libraries.contains(Libraries.CEILING_PIPELINED)) {
            return rate;
        }
        List<String> all = new ArrayList<>(rate);
        all.add(Libraries.CEILING_PIPELINED);
        return all;
    }

    /** Sluice with a local budget is measured on the hot key, where it is meant to be used. */
    private static List<String> withBudget(List<String> rate, Set<String> libraries) {
        if (libraries != null && !libraries.contains(Libraries.SLUICE_BUDGET)) {
            return rate;
        }
        List<String> all = new ArrayList<>(rate);
        all.add(1, Libraries.SLUICE_BUDGET);
        return all;
    }

    private static List<String> select(List<String> all, Set<String> wanted) {
        return wanted == null ? all : all.stream().filter(wanted::contains).toList();
    }

    /** Rounds start with a different library each, so no library always runs first (or last) in its scenario. */
    private static <T> List<T> rotate(List<T> items, int by) {
        List<T> rotated = new ArrayList<>(items);
        Collections.rotate(rotated, -by);
        return rotated;
    }

    private static String elapsed(long started) {
        long s = (System.nanoTime() - started) / 1_000_000_000L;
        return String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
    }
}
