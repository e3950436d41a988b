package dev.sluice.internal.lock;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Locks and semaphores are a part of their own below the runtime: {@code internal.lock} uses neither the rate-limit
 * engine ({@code internal.limit}) nor the runtime that owns it ({@code internal.runtime}), so that the runtime
 * builds the lock service from parts and no import cycle joins them.
 */
class LockPackageDependenciesTest {

    private static final Path LOCK_SOURCES = Path.of("src/main/java/dev/sluice/internal/lock");

    @Test
    void lockPackageUsesNeitherTheRateLimitEngineNorTheRuntime() throws IOException {
        List<String> offending;
        try (Stream<Path> files = Files.list(LOCK_SOURCES)) {
            offending = files.filter(f -> f.toString().endsWith(".java")).flatMap(f -> {
                try {
                    return Files.readAllLines(f).stream()
                            .filter(line -> line.contains("dev.sluice.internal.limit.")
                                    || line.contains("dev.sluice.internal.runtime."))
                            .map(line -> f.getFileName() + ": " + line.trim());
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }).toList();
        }
        assertThat(LOCK_SOURCES.resolve("LockService.java")).as("run from the core module").exists();
        assertThat(offending).isEmpty();
    }
}
