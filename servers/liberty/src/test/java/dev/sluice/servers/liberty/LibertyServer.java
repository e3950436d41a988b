package dev.sluice.servers.liberty;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Boots one server of the Open Liberty installation that the build unpacked ({@code -Dwlp.home}), with the
 * configuration in {@code src/test/liberty/servers/<name>}, before the test class and stops it after: {@code
 * bin/server run <name>} on this JVM's Java, ready when {@code messages.log} says the server is ready and every
 * application of the configuration started. Register it after the Redis fixture; {@link #writing} adds the files
 * that carry Redis's address (they depend on the port the fixture picked).
 *
 * <p>One more server configuration is one more directory under {@code src/test/liberty/servers} and one test class
 * registering this extension with its name.
 */
public final class LibertyServer implements BeforeAllCallback, AfterAllCallback {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(240);
    private static final Pattern APP_STARTED = Pattern.compile("CWWKZ0001I: .*? (\\S+) started");
    /** Application or feature failures, and the server giving up. */
    private static final Pattern FAILURE = Pattern.compile("CWWKZ0002E|CWWKZ0013E|CWWKF0001E|CWWKF0042E|CWWKE0701E");

    private final String name;
    private final int httpPort;
    private final List<String> apps;
    private final List<ServerFile> files = new ArrayList<>();
    private Process process;

    /**
     * @param name     the server configuration, a directory of {@code usr/servers}
     * @param httpPort the HTTP port its {@code server.xml} listens on (loopback)
     * @param apps     the applications it must have started (their {@code name} in {@code server.xml})
     */
    public LibertyServer(String name, int httpPort, String... apps) {
        this.name = name;
        this.httpPort = httpPort;
        this.apps = List.of(apps);
    }

    /** Writes {@code path} (relative to the server's directory) with the content, just before the server starts. */
    public LibertyServer writing(String path, Supplier<String> content) {
        files.add(new ServerFile(path, content));
        return this;
    }

    /** The server's HTTP port. */
    public int httpPort() {
        return httpPort;
    }

    /** {@code messages.log} of the running server, for failure messages. */
    public String messages() {
        try {
            return Files.readString(serverDir().resolve("logs/messages.log"), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no messages.log: " + e + ")";
        }
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        Path serverDir = serverDir();
        if (!Files.isRegularFile(serverDir.resolve("server.xml"))) {
            throw new IllegalStateException(serverDir + "/server.xml is missing: run the tests through Maven"
                    + " (mvn verify), which unpacks Open Liberty and copies the server configurations");
        }
        for (ServerFile file : files) {
            Path target = serverDir.resolve(file.path());
            Files.createDirectories(target.getParent());
            Files.writeString(target, file.content().get(), StandardCharsets.UTF_8);
        }
        deleteRecursively(serverDir.resolve("logs"));

        Path out = output();
        Files.deleteIfExists(out);
        long started = System.nanoTime();
        process = serverCommand("run").start();
        awaitStarted(out);
        System.out.printf("Open Liberty server %s ready with %s in %d ms%n", name, apps,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    }

    private void awaitStarted(Path out) throws IOException, InterruptedException {
        Path log = serverDir().resolve("logs/messages.log");
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (true) {
            String messages = Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
            if (FAILURE.matcher(messages).find()) {
                throw new IllegalStateException("Open Liberty server " + name + " failed to start:\n" + messages);
            }
            if (messages.contains("CWWKF0011I") && startedApps(messages).containsAll(apps)) {
                return;
            }
            if (!process.isAlive() || System.nanoTime() > deadline) {
                throw new IllegalStateException("Open Liberty server " + name + (process.isAlive()
                        ? " not ready after " + START_TIMEOUT : " exited with " + process.exitValue())
                        + ":\n" + messages + "\n" + Files.readString(out, StandardCharsets.UTF_8));
            }
            Thread.sleep(200); // polling the log for the server's own start message
        }
    }

    private static List<String> startedApps(String messages) {
        List<String> started = new ArrayList<>();
        Matcher matcher = APP_STARTED.matcher(messages);
        while (matcher.find()) {
            started.add(matcher.group(1));
        }
        return started;
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (process == null) {
            return;
        }
        try {
            Process stop = serverCommand("stop").start();
            if (!stop.waitFor(60, TimeUnit.SECONDS)) {
                stop.destroyForcibly();
            }
        } finally {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
            }
            process = null;
        }
    }

    /** {@code bin/server <action> <name>} on this JVM's Java, its output appended to {@link #output()}. */
    private ProcessBuilder serverCommand(String action) {
        ProcessBuilder builder = new ProcessBuilder(wlpHome().resolve("bin/server").toString(), action, name)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(output().toFile()));
        Map<String, String> env = builder.environment();
        env.put("JAVA_HOME", System.getProperty("java.home"));
        env.put("JVM_ARGS", System.getProperty("sluice.it.jvm.memory", "") + " -Djava.net.preferIPv4Stack=true");
        return builder;
    }

    private Path output() {
        return Path.of("target", "liberty-" + name + ".out").toAbsolutePath();
    }

    private Path serverDir() {
        return wlpHome().resolve("usr/servers").resolve(name);
    }

    private static Path wlpHome() {
        return Path.of(System.getProperty("wlp.home", "target/wlp"));
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }

    private record ServerFile(String path, Supplier<String> content) {
    }
}
