package dev.sluice.bench;

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
import java.util.concurrent.atomic.LongAdder;

/**
 * Admitted and refused decisions of the measured iterations of a fork whose decisions may be refused (a
 * concurrency limit with fewer permits than threads), written at the end of the trial to the file named by
 * {@link #FILE}, so the report can say what share of the decisions per second were admissions.
 */
@State(Scope.Benchmark)
public class Admissions {

    /** System property: where the fork writes its counts. */
    static final String FILE = "sluice.bench.admissions-file";

    private final LongAdder admitted = new LongAdder();
    private final LongAdder refused = new LongAdder();
    private volatile boolean measuring;

    @Setup(Level.Iteration)
    public void iteration(IterationParams params) {
        measuring = params.getType() == IterationType.MEASUREMENT;
    }

    void record(boolean wasAdmitted) {
        if (measuring) {
            (wasAdmitted ? admitted : refused).increment();
        }
    }

    @TearDown(Level.Trial)
    public void publish() {
        String file = System.getProperty(FILE);
        if (file != null) {
            try {
                Files.writeString(Path.of(file), String.format(Locale.ROOT, "%d %d%n", admitted.sum(), refused.sum()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** The share of admitted decisions in a fork's file; {@code NaN} when the fork wrote none. */
    static double share(Path file) throws IOException {
        String text = Files.exists(file) ? Files.readString(file).trim() : "";
        if (text.isEmpty()) {
            return Double.NaN;
        }
        String[] parts = text.split(" ");
        double a = Long.parseLong(parts[0]);
        double r = Long.parseLong(parts[1]);
        return a + r == 0 ? Double.NaN : a / (a + r);
    }
}
