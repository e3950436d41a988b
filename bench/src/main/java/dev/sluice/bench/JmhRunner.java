package dev.sluice.bench;

import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.profile.GCProfiler;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/** Runs one library in one scenario as one JMH fork and reads back throughput and latency. */
final class JmhRunner {

    private final Plan plan;
    private final String redisUri;
    private final List<String> extraJvmArgs;
    private final boolean gcProfiler;
    private final Pinning pinning;

    /**
     * @param gcProfiler add JMH's GC profiler and print the bytes allocated per operation (a development aid)
     * @param pinning    forks of the scenarios it {@link Pinning#applies applies to} run on the client CPU
     */
    JmhRunner(Plan plan, String redisUri, List<String> extraJvmArgs, boolean gcProfiler, Pinning pinning) {
        this.plan = plan;
        this.pinning = pinning;
        this.redisUri = redisUri;
        this.extraJvmArgs = extraJvmArgs;
        this.gcProfiler = gcProfiler;
    }

    Measurement run(Scenario scenario, String library, int round) throws IOException, RunnerException {
        Path latencyFile = Files.createTempFile("sluice-bench-latency", ".txt");
        Path cpuFile = Files.createTempFile("sluice-bench-cpu", ".txt");
        Path admissionsFile = Files.createTempFile("sluice-bench-admissions", ".txt");
        try {
            List<String> jvmArgs = new ArrayList<>(List.of("-Xms512m", "-Xmx512m",
                    "-D" + BenchEnv.REDIS_URI + "=" + redisUri,
                    "-D" + Latency.FILE + "=" + latencyFile,
                    "-D" + CpuMeter.FILE + "=" + cpuFile,
                    "-D" + Admissions.FILE + "=" + admissionsFile,
                    "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
            jvmArgs.addAll(extraJvmArgs);
            ChainedOptionsBuilder options = new OptionsBuilder()
                    .include(Pattern.quote(scenario.section().benchmark.getName() + "." + scenario.section().method) + "$")
                    .param("library", library)
                    .mode(Mode.Throughput)
                    .timeUnit(TimeUnit.SECONDS)
                    .threads(scenario.threads())
                    .forks(1)
                    .warmupIterations(plan.warmups())
                    .warmupTime(TimeValue.milliseconds(plan.warmupTime().toMillis()))
                    .measurementIterations(plan.iterations())
                    .measurementTime(TimeValue.milliseconds(plan.iterationTime().toMillis()))
                    .syncIterations(true)
                    .shouldFailOnError(true)
                    .verbosity(VerboseMode.SILENT)
                    .jvmArgsAppend(jvmArgs.toArray(String[]::new));
            if (pinning.applies(scenario)) {
                options.jvm(pinning.pinnedJava());
            }
            if (gcProfiler) {
                options.addProfiler(GCProfiler.class);
            }
            for (Map.Entry<String, String> p : scenario.variant().entrySet()) {
                options.param(p.getKey(), p.getValue());
            }
            Collection<RunResult> results = new Runner(options.build()).run();
            if (results.size() != 1) {
                throw new IllegalStateException(scenario.id() + " " + library + ": expected one JMH result, got "
                        + results.size() + " (a failed fork prints its error above)");
            }
            RunResult result = results.iterator().next();
            List<Double> iterations = new ArrayList<>();
            for (BenchmarkResult fork : result.getBenchmarkResults()) {
                for (IterationResult iteration : fork.getIterationResults()) {
                    iterations.add(iteration.getPrimaryResult().getScore());
                }
            }
            result.getSecondaryResults().forEach((name, r) -> {
                if (name.endsWith("alloc.rate.norm")) {
                    System.out.printf(Locale.ROOT, "    %s %s: %.0f bytes allocated per operation%n", scenario.id(), library, r.getScore());
                }
            });
            Latency.Summary latency = Latency.Summary.read(latencyFile);
            CpuMeter.Totals cpu = CpuMeter.Totals.read(cpuFile);
            double operations = iterations.stream().mapToDouble(Double::doubleValue).sum()
                    * plan.iterationTime().toNanos() / 1e9;
            return new Measurement(library, round, iterations.stream().mapToDouble(Double::doubleValue).toArray(),
                    latency.p50Nanos(), latency.p99Nanos(), cpu.jvmMicros() / operations, cpu.redisMicros() / operations,
                    Admissions.share(admissionsFile), cpu.scripts() / operations);
        } finally {
            Files.deleteIfExists(admissionsFile);
            Files.deleteIfExists(latencyFile);
            Files.deleteIfExists(cpuFile);
        }
    }
}
