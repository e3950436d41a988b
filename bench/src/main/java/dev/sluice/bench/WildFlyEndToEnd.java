package dev.sluice.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * End to end on WildFly: a trivial JAX-RS endpoint of the ear-sample, loaded by {@code wrk} on loopback, with
 * Sluice's filter (a limit never reached) and without; reported as the requests/s ratio and the added p99.
 *
 * <p>HOOK, not yet measured: it needs the provisioned WildFly and the ear-sample deployment built by the
 * ear-sample module. Until that lands, {@link #run} reports why it was skipped and the report shows the row as
 * "not measured" rather than inventing a number.
 */
final class WildFlyEndToEnd {

    /** The outcome: measured numbers or the reason they are missing. */
    record Result(Optional<String> skipped, double withFilterRps, double withoutFilterRps, double addedP99Micros) {
    }

    private final Path repository;

    WildFlyEndToEnd(Path repository) {
        this.repository = repository;
    }

    Result run() {
        if (!onPath("wrk")) {
            return skipped("wrk is not installed (apt-get install wrk)");
        }
        if (!Files.isDirectory(repository.resolve("ear-sample/target"))) {
            return skipped("the ear-sample has not been built (mvn -pl ear-sample -am package)");
        }
        return skipped("the WildFly run of the ear-sample is not wired into the benchmark yet");
    }

    private static Result skipped(String reason) {
        return new Result(Optional.of(reason), Double.NaN, Double.NaN, Double.NaN);
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
