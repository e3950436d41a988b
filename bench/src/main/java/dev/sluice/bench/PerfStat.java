package dev.sluice.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Software events ({@code perf stat}: system calls, context switches) of this process or of one of its threads
 * while a measurement runs. They need no hardware counters, which virtual machines often lack, and their number per
 * operation depends on the code rather than on how loaded the host is. {@code perf} must be on the PATH and allowed
 * to attach ({@code kernel.perf_event_paranoid}, or root).
 */
final class PerfStat {

    private final Process perf;
    private final Path output;

    private PerfStat(Process perf, Path output) {
        this.perf = perf;
        this.output = output;
    }

    /** Counts {@code events} (comma-separated) of the calling thread. */
    static PerfStat ofThisThread(String events) throws IOException, InterruptedException {
        // /proc/thread-self links to <pid>/task/<tid>
        return start(events, "-t", Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString());
    }

    /** Counts {@code events} (comma-separated) of every thread of this process. */
    static PerfStat ofThisProcess(String events) throws IOException, InterruptedException {
        return start(events, "-p", Long.toString(ProcessHandle.current().pid()));
    }

    private static PerfStat start(String events, String option, String target)
            throws IOException, InterruptedException {
        Path output = Files.createTempFile("sluice-perf", ".csv");
        Process perf = new ProcessBuilder("perf", "stat", "-x", ",", "-o", output.toString(), "-e", events, option,
                target).start();
        Thread.sleep(500); // perf attaches asynchronously; nothing to wait on but time (a benchmark, not a test)
        return new PerfStat(perf, output);
    }

    /** Stops counting; each event's count divided by {@code operations}, e.g. {@code context-switches 1.00}. */
    String stop(long operations) throws IOException, InterruptedException {
        new ProcessBuilder("kill", "-INT", Long.toString(perf.pid())).start().waitFor();
        perf.waitFor();
        StringBuilder counts = new StringBuilder();
        for (String line : Files.readAllLines(output)) {
            String[] fields = line.split(",");
            if (fields.length > 2 && !fields[0].isEmpty() && Character.isDigit(fields[0].charAt(0))) {
                counts.append(counts.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%s %.2f",
                        fields[2], Double.parseDouble(fields[0]) / operations));
            }
        }
        Files.delete(output);
        return counts.toString();
    }
}
