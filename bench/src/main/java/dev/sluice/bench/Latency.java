package dev.sluice.bench;

import org.HdrHistogram.Histogram;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Per-thread latency histogram of the measured iterations of a throughput run. JMH measures throughput;
 * this adds the p50/p99 of each call (two {@code nanoTime} reads, tens of nanoseconds against calls of
 * tens of microseconds). At the end of the trial every thread merges its histogram into the fork's total,
 * which is written to the file named by {@link #FILE} for the runner to read.
 */
@State(Scope.Thread)
public class Latency {

    /** System property: where the fork writes its latency summary. */
    static final String FILE = "sluice.bench.latency-file";

    private static final Histogram TOTAL = new Histogram(3_600_000_000_000L, 3);

    private final Histogram mine = new Histogram(3_600_000_000_000L, 3);
    private boolean measuring;

    @Setup(Level.Iteration)
    public void iteration(IterationParams params) {
        measuring = params.getType() == IterationType.MEASUREMENT;
    }

    /** Records one call that started at {@code startNanos}. */
    public void since(long startNanos) {
        if (measuring) {
            mine.recordValue(System.nanoTime() - startNanos);
        }
    }

    @TearDown(Level.Trial)
    public void publish() {
        // Every thread rewrites the file with the running total, so the last one to finish leaves it complete
        // whatever order JMH tears states down in.
        synchronized (TOTAL) {
            TOTAL.add(mine);
            String file = System.getProperty(FILE);
            if (file != null) {
                write(Path.of(file), TOTAL);
            }
        }
    }

    static void write(Path file, Histogram histogram) {
        String line = String.format(Locale.ROOT, "%d %d %d %d%n", histogram.getTotalCount(),
                histogram.getValueAtPercentile(50), histogram.getValueAtPercentile(99), histogram.getMaxValue());
        try {
            Files.writeString(file, line);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Count, p50, p99 and max in nanoseconds, as written by a fork. */
    record Summary(long count, long p50Nanos, long p99Nanos, long maxNanos) {
        static Summary read(Path file) throws IOException {
            String[] parts = Files.readString(file).trim().split(" ");
            return new Summary(Long.parseLong(parts[0]), Long.parseLong(parts[1]), Long.parseLong(parts[2]),
                    Long.parseLong(parts[3]));
        }
    }
}
