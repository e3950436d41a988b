package dev.sluice.internal.limit;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rate limits are a part of their own beside locks: {@code internal.limit} refers to nothing in
 * {@code internal.lock}, by import or by a fully qualified name; what both need (the watchdog and leases of held
 * permits) lives in {@code internal.lease}.
 */
class LimitPackageDependenciesTest {

    private static final Path LIMIT_SOURCES = Path.of("src/main/java/dev/sluice/internal/limit");

    @Test
    void limitPackageRefersToNothingInTheLockPackage() throws IOException {
        List<String> offending;
        try (Stream<Path> files = Files.list(LIMIT_SOURCES)) {
            offending = files.filter(f -> f.toString().endsWith(".java")).flatMap(f -> {
                try {
                    return Files.readAllLines(f).stream().filter(line -> line.contains("dev.sluice.internal.lock."))
                            .map(line -> f.getFileName() + ": " + line.trim());
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }).toList();
        }
        assertThat(LIMIT_SOURCES.resolve("RateLimitEngine.java")).as("run from the core module").exists();
        assertThat(offending).isEmpty();
    }
}
