package dev.sluice.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

/**
 * CPU pinning of the one-thread rows. With one caller, throughput depends on whether the client and
 * {@code redis-server} happen to share a CPU (every round trip then waits for a context switch), which the
 * scheduler decides differently from fork to fork. So for a one-thread row, whatever the library, the client
 * process (the JMH fork's whole JVM, or {@code redis-benchmark}) runs on one CPU and {@code redis-server} (all
 * its threads) on another, with {@code taskset}; afterwards {@code redis-server} gets every CPU back.
 * Multi-thread rows are not pinned: a client confined to one CPU would measure that CPU, not the library.
 *
 * <p>Off (with the reason in {@link #describe()}) when {@code taskset} is missing or there are fewer than two CPUs.
 */
final class Pinning {

    static final int REDIS_CPU = 0;
    static final int CLIENT_CPU = 1;

    private final boolean available;
    private final String reason;
    private Path javaWrapper;

    private Pinning(boolean available, String reason) {
        this.available = available;
        this.reason = reason;
    }

    static Pinning detect() {
        if (Runtime.getRuntime().availableProcessors() < 2) {
            return new Pinning(false, "off: fewer than two CPUs");
        }
        if (Environment.command("taskset", "--version").equals("unknown")) {
            return new Pinning(false, "off: taskset not found");
        }
        return new Pinning(true, "");
    }

    boolean applies(Scenario scenario) {
        return available && scenario.threads() == 1;
    }

    String describe() {
        return available ? "one-thread rows: client process (JMH fork or redis-benchmark) on CPU " + CLIENT_CPU
                + ", redis-server on CPU " + REDIS_CPU + " (taskset), for every library; other rows unpinned" : reason;
    }

    /** The command prefix that runs a client on its CPU. */
    List<String> clientPrefix() {
        return List.of("taskset", "-c", String.valueOf(CLIENT_CPU));
    }

    /** An executable that starts this JDK's {@code java} on the client CPU: the {@code jvm} JMH forks. */
    synchronized String pinnedJava() {
        if (javaWrapper == null) {
            try {
                Path script = Files.createTempFile("sluice-bench-pinned-java", ".sh",
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
                Files.writeString(script, "#!/bin/sh\nexec taskset -c " + CLIENT_CPU + " '" + java + "' \"$@\"\n");
                script.toFile().deleteOnExit();
                javaWrapper = script;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return javaWrapper.toString();
    }

    /** Pins every thread of {@code redis} to its CPU until the returned handle is closed. */
    AutoCloseable pinRedis(PrivateRedis redis) throws IOException, InterruptedException {
        // "pid 123's current affinity list: 0,1": what redis-server gets back afterwards
        String current = taskset("-p", "-c", String.valueOf(redis.pid()));
        String before = current.substring(current.lastIndexOf(':') + 1).trim();
        taskset("-a", "-p", "-c", String.valueOf(REDIS_CPU), String.valueOf(redis.pid()));
        return () -> taskset("-a", "-p", "-c", before, String.valueOf(redis.pid()));
    }

    private static String taskset(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("taskset"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes()).trim();
        if (process.waitFor() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + out);
        }
        return out;
    }
}
