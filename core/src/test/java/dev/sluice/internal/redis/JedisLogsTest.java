package dev.sluice.internal.redis;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Jedis logs through SLF4J. On a server without an SLF4J binding (Payara), SLF4J would print its "no binding"
 * notice on standard error, which the server logs as SEVERE, and drop every Jedis warning after it. With exactly
 * the class path that sluice-core gives an application (its runtime dependencies, nothing from the tests), a JVM in
 * which Jedis warns must show the warning through {@code java.util.logging}, the log every server keeps, and no
 * SLF4J notice.
 */
class JedisLogsTest {

    @Test
    void aJedisWarningReachesJavaUtilLoggingWithoutAnySlf4jNotice() throws Exception {
        String runtime = Files.readString(Path.of(System.getProperty("test.runtime-classpath"))).strip();
        String classPath = String.join(java.io.File.pathSeparator, List.of(
                Path.of("target", "classes").toAbsolutePath().toString(),
                Path.of("target", "test-classes").toAbsolutePath().toString(), runtime));
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", classPath, SentinelsDown.class.getName(), String.valueOf(freePort()))
                .redirectErrorStream(true).start();
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("child JVM ended").isTrue();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

        assertThat(output).as(output).doesNotContain("SLF4J:").contains("WARNING: Cannot get master address from sentinel");
        assertThat(output).contains("jedis failed as expected");
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** Run in the child JVM: a sentinel pool over a port nobody listens on, so Jedis warns and gives up. */
    public static final class SentinelsDown {
        public static void main(String[] args) {
            try (var pool = new redis.clients.jedis.JedisSentinelPool("mymaster", Set.of("127.0.0.1:" + args[0]))) {
                System.out.println("pool started unexpectedly");
            } catch (RuntimeException expected) {
                System.out.println("jedis failed as expected: " + expected.getClass().getName());
            }
        }
    }
}
