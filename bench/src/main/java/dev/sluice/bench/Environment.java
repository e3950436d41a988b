package dev.sluice.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;

/** Where and with what a run was made: the header of the report. */
final class Environment {

    private final Map<String, String> facts = new LinkedHashMap<>();

    static Environment describe(Plan plan, String redisVersion, Path repository, Duration elapsed, Pinning pinning) {
        Environment env = new Environment();
        env.facts.put("Date", ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")));
        env.facts.put("Mode", plan.describe() + "; run time " + elapsed.toMinutes() + " min " + elapsed.toSecondsPart() + " s");
        env.facts.put("Machine", cpu() + ", " + Runtime.getRuntime().availableProcessors() + " cores, "
                + memory() + ", " + os() + " (shared with other work while measured)");
        env.facts.put("CPU pinning", pinning.describe());
        env.facts.put("JDK", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        env.facts.put("Redis", "redis-server " + redisVersion + " on loopback, no persistence; " + command("redis-benchmark", "--version"));
        env.facts.put("Sluice", System.getProperty("sluice.bench.version", "dev") + " at " + command("git", "-C",
                repository.toString(), "rev-parse", "--short", "HEAD"));
        env.facts.put("Bucket4j", version("com.bucket4j", "bucket4j_jdk17-core") + " (bucket4j_jdk17-jedis, compare-and-swap)");
        env.facts.put("Redisson", version("org.redisson", "redisson"));
        env.facts.put("Jedis", version("redis.clients", "jedis") + " (Sluice and Bucket4j), pool of " + BenchEnv.POOL_SIZE + " for every library");
        env.facts.put("JMH", version("org.openjdk.jmh", "jmh-core"));
        return env;
    }

    String date() {
        return facts.get("Date");
    }

    String markdown() {
        return facts.entrySet().stream().map(e -> "- **" + e.getKey() + "**: " + e.getValue())
                .collect(Collectors.joining("\n")) + "\n";
    }

    String text() {
        return facts.entrySet().stream().map(e -> e.getKey() + ": " + e.getValue()).collect(Collectors.joining("\n")) + "\n";
    }

    private static String version(String group, String artifact) {
        String resource = "META-INF/maven/" + group + "/" + artifact + "/pom.properties";
        try (InputStream in = Environment.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                return "unknown";
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static String cpu() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElse("unknown CPU");
        } catch (IOException e) {
            return "unknown CPU";
        }
    }

    private static String memory() {
        try {
            return Files.readAllLines(Path.of("/proc/meminfo")).stream().filter(l -> l.startsWith("MemTotal"))
                    .map(l -> Math.round(Long.parseLong(l.replaceAll("\\D", "")) / 1024.0 / 1024.0) + " GiB RAM")
                    .findFirst().orElse("unknown RAM");
        } catch (IOException e) {
            return "unknown RAM";
        }
    }

    private static String os() {
        try {
            String pretty = Files.readAllLines(Path.of("/etc/os-release")).stream().filter(l -> l.startsWith("PRETTY_NAME="))
                    .map(l -> l.substring("PRETTY_NAME=".length()).replace("\"", "")).findFirst().orElse("Linux");
            return pretty + ", kernel " + System.getProperty("os.version");
        } catch (IOException e) {
            return System.getProperty("os.name") + " " + System.getProperty("os.version");
        }
    }

    static String command(String... args) {
        try {
            Process p = new ProcessBuilder(args).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return p.waitFor() == 0 ? out : "unknown";
        } catch (IOException e) {
            return "unknown";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }
}
