package dev.sluice.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * End to end on WildFly: a trivial JAX-RS endpoint of the ear-sample, loaded by {@code wrk} on loopback, with
 * Sluice's filter (a limit never reached) and without; reported as the requests/s ratio and the added p99.
 *
 * <p>HOOK: the measurement itself is {@code bench/e2e.sh}, run by hand (it restarts WildFly for every run and
 * takes minutes), which writes its own block of docs/performance.md. Here {@link #run} only reports why the
 * row of this run is "not measured" and where the numbers are, rather than inventing a number.
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
        return skipped("measured by hand with bench/e2e.sh; see \"End to end (WildFly, wrk), run by hand\" below");
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
