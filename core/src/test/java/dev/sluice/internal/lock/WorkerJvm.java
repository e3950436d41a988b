package dev.sluice.internal.lock;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A {@link LockFaultWorker} in a JVM of its own, started with this JVM's class path: a separate application node
 * with its own runtime, pool and watchdog, which the test can freeze whole ({@code SIGSTOP}, a stop-the-world pause
 * as long as it likes) and resume. Its log is a file. Not thread-safe.
 */
final class WorkerJvm implements AutoCloseable {

    private final String name;
    private final Process process;
    private final Path log;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private boolean paused;

    private WorkerJvm(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException ignored) {
                // the worker exited
            }
        }, "worker-" + name + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts worker {@code name} and waits until its runtime is up. */
    static WorkerJvm start(String name, int checkerPort, long leaseMillis, Map<String, String> config, Path logDir) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // Small and quick to start: these JVMs only run a few threads against loopback sockets.
                "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
                "-cp", System.getProperty("java.class.path"),
                LockFaultWorker.class.getName(), name, Integer.toString(checkerPort), Long.toString(leaseMillis)));
        config.forEach((k, v) -> command.add(k + "=" + v));
        try {
            Files.createDirectories(logDir);
            Path log = logDir.resolve("worker-" + name + ".log");
            Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.to(log.toFile())).start();
            WorkerJvm worker = new WorkerJvm(name, process, log);
            String first = worker.lines.poll(120, TimeUnit.SECONDS);
            if (!"READY".equals(first)) {
                worker.close();
                throw new IllegalStateException("worker " + name + " did not start (" + first + "); log " + log);
            }
            return worker;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    String name() {
        return name;
    }

    Path log() {
        return log;
    }

    /** SIGSTOP: the whole JVM freezes, its watchdog included (a long GC pause, a VM migration). */
    void pause() {
        signal("STOP");
        paused = true;
    }

    /** SIGCONT. */
    void resume() {
        if (paused) {
            signal("CONT");
            paused = false;
        }
    }

    /** Asks the worker to finish and returns its counts. */
    Map<String, Long> stop() {
        resume();
        try (Writer stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8)) {
            stdin.write("STOP\n");
        } catch (IOException e) {
            throw new UncheckedIOException("worker " + name + " is gone; log " + log, e);
        }
        try {
            String line;
            while ((line = lines.poll(60, TimeUnit.SECONDS)) != null) {
                if (line.startsWith("COUNTS")) {
                    Map<String, Long> counts = new LinkedHashMap<>();
                    for (String pair : line.substring("COUNTS".length()).trim().split(" ")) {
                        int eq = pair.indexOf('=');
                        counts.put(pair.substring(0, eq), Long.parseLong(pair.substring(eq + 1)));
                    }
                    process.waitFor(30, TimeUnit.SECONDS);
                    return counts;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        throw new IllegalStateException("worker " + name + " did not report its counts; log " + log);
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            if (paused) {
                signal("CONT");
            }
            process.destroyForcibly();
        }
    }

    private void signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                    .redirectErrorStream(true).start();
            kill.getInputStream().readAllBytes();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
