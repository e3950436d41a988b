package dev.sluice.bench;

import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;
import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * CPU spent during the measured iterations of a fork, on both sides of the wire: this JVM's process CPU
 * time, and {@code redis-server}'s ({@code INFO cpu}); and the scripts Redis ran meanwhile ({@code INFO commandstats}:
 * {@code EVALSHA} and {@code EVAL} calls). Divided by the decisions made, they tell where a library's cost lies: in
 * the client, or in the Redis work it asks for, and how many Redis calls a decision took. Written at the end of the
 * trial to the file named by {@link #FILE}.
 */
@State(Scope.Benchmark)
public class CpuMeter {

    /** System property: where the fork writes its CPU totals. */
    static final String FILE = "sluice.bench.cpu-file";

    private Jedis redis;
    private boolean measuring;
    private long redisStart;
    private long jvmStart;
    private long redisMicros;
    private long jvmNanos;
    private long scriptsStart;
    private long scripts;

    @Setup(Level.Trial)
    public void connect() {
        URI uri = URI.create(BenchEnv.redisUri());
        redis = new Jedis(uri.getHost(), uri.getPort(), 10_000);
    }

    @Setup(Level.Iteration)
    public void begin(IterationParams params) {
        measuring = params.getType() == IterationType.MEASUREMENT;
        if (measuring) {
            redisStart = redisCpuMicros();
            jvmStart = jvmCpuNanos();
            scriptsStart = scriptCalls(redis);
        }
    }

    @TearDown(Level.Iteration)
    public void end() {
        if (measuring) {
            jvmNanos += jvmCpuNanos() - jvmStart;
            redisMicros += redisCpuMicros() - redisStart;
            scripts += scriptCalls(redis) - scriptsStart;
        }
    }

    @TearDown(Level.Trial)
    public void publish() {
        redis.close();
        String file = System.getProperty(FILE);
        if (file != null) {
            try {
                Files.writeString(Path.of(file), String.format(Locale.ROOT, "%d %d %d%n", jvmNanos / 1000, redisMicros,
                        scripts));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private long redisCpuMicros() {
        return redisCpuMicros(redis);
    }

    /** {@code used_cpu_sys + used_cpu_user} of the server, in microseconds. */
    static long redisCpuMicros(Jedis redis) {
        double seconds = redis.info("cpu").lines()
                .filter(l -> l.startsWith("used_cpu_sys:") || l.startsWith("used_cpu_user:"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.indexOf(':') + 1).trim()))
                .sum();
        return Math.round(seconds * 1_000_000);
    }

    /** Scripts Redis ran so far ({@code INFO commandstats}: the calls of {@code EVALSHA} and {@code EVAL}). */
    static long scriptCalls(Jedis redis) {
        long calls = 0;
        for (String line : redis.info("commandstats").lines().toList()) {
            if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                int from = line.indexOf("calls=") + "calls=".length();
                int to = line.indexOf(',', from);
                calls += Long.parseLong(line.substring(from, to));
            }
        }
        return calls;
    }

    private static long jvmCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** The fork's totals over its measured iterations. */
    record Totals(long jvmMicros, long redisMicros, long scripts) {
        static Totals read(Path file) throws IOException {
            String[] parts = Files.readString(file).trim().split(" ");
            return new Totals(Long.parseLong(parts[0]), Long.parseLong(parts[1]), Long.parseLong(parts[2]));
        }
    }
}
