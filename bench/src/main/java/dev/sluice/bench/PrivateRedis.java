package dev.sluice.bench;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The {@code redis-server} a benchmark run starts for itself on a free loopback port, without persistence,
 * and stops at the end (a shutdown hook kills it if the run dies). It never touches a Redis it did not start.
 *
 * <p>This is a program, not a test, so it does not use the JUnit fixture of the core test-jar; it needs
 * nothing from it but these few lines.
 */
final class PrivateRedis implements AutoCloseable {

    private final Process process;
    private final int port;
    private final Path dir;

    private PrivateRedis(Process process, int port, Path dir) {
        this.process = process;
        this.port = port;
        this.dir = dir;
    }

    static PrivateRedis start() throws IOException, InterruptedException {
        int port = freePort();
        Path dir = Files.createTempDirectory("sluice-bench-redis");
        Process process = new ProcessBuilder(List.of("redis-server", "--port", String.valueOf(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.toString(),
                "--logfile", dir.resolve("redis.log").toString()))
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("stdout.log").toFile())
                .start();
        PrivateRedis redis = new PrivateRedis(process, port, dir);
        Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try (Jedis jedis = redis.connect()) {
                jedis.ping();
                return redis;
            } catch (JedisConnectionException e) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    process.destroyForcibly();
                    throw new IOException("redis-server did not start on port " + port + "; see " + dir, e);
                }
                Thread.sleep(50); // polling a starting process: there is nothing to wait on but the port
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** The process id of the redis-server (for pinning it to a CPU). */
    long pid() {
        return process.pid();
    }

    int port() {
        return port;
    }

    String uri() {
        return "redis://127.0.0.1:" + port;
    }

    /** A plain connection for setup and inspection (not for measured calls). */
    Jedis connect() {
        return new Jedis("127.0.0.1", port, 10_000);
    }

    /** Empties the database so that one run's state neither helps nor hinders the next. */
    void flush() {
        try (Jedis jedis = connect()) {
            jedis.flushAll();
        }
    }

    String version() {
        try (Jedis jedis = connect()) {
            return jedis.info("server").lines()
                    .filter(l -> l.startsWith("redis_version:"))
                    .map(l -> l.substring("redis_version:".length()).trim())
                    .findFirst().orElse("unknown");
        }
    }

    @Override
    public void close() {
        try (Jedis jedis = connect()) {
            jedis.shutdown();
        } catch (RuntimeException ignored) {
            // SHUTDOWN closes the connection under the client's feet; the process is destroyed below anyway.
        }
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        try (var files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
