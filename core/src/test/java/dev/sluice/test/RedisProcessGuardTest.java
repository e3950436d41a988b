package dev.sluice.test;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * A JVM killed with {@code kill -9} runs no shutdown hook, yet the {@code redis-server} processes it started must
 * not outlive it (PIT kills a minion that runs too long this way). Each case starts a JVM that starts a server
 * through {@link RedisProcess}, kills that JVM outright and waits until the server is gone.
 */
class RedisProcessGuardTest {

    private static final long GONE_WITHIN_SECONDS = 60;

    @Test
    void aServerEndsWhenTheJvmThatStartedItIsKilled() throws Exception {
        assertServerEndsWithItsJvm(false);
    }

    @Test
    void aPausedServerEndsWhenTheJvmThatStartedItIsKilled() throws Exception {
        assertServerEndsWithItsJvm(true);
    }

    private static void assertServerEndsWithItsJvm(boolean paused) throws Exception {
        RedisProcess.assumeBinary();
        Process jvm = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"),
                StartsRedisAndWaits.class.getName(), Boolean.toString(paused))
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        long serverPid;
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(jvm.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine();
            assertThat(line).as("the child JVM's report").startsWith("redis-server ");
            serverPid = Long.parseLong(line.substring("redis-server ".length()));
            assertThat(command(serverPid)).as("process %d", serverPid)
                    .isEqualTo(Path.of(RedisProcess.BINARY).getFileName().toString());
            if (paused) {
                assertThat(state(serverPid)).as("state of process %d", serverPid).isEqualTo("T");
            }
        } finally {
            jvm.destroyForcibly();
            jvm.waitFor();
        }

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(GONE_WITHIN_SECONDS);
        while (!gone(serverPid)) {
            if (System.nanoTime() > deadline) {
                ProcessHandle.of(serverPid).ifPresent(ProcessHandle::destroyForcibly);
                fail("redis-server %d outlived the JVM that started it by %d s", serverPid, GONE_WITHIN_SECONDS);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }

    /** No such process, or a zombie its new parent has not reaped yet (it holds no port and runs nothing). */
    private static boolean gone(long pid) throws IOException {
        String state = state(pid);
        return state == null || state.equals("Z") || state.equals("X");
    }

    private static String state(long pid) throws IOException {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // pid (comm) state ...: comm may hold spaces, so read after the last ')'
            return stat.substring(stat.lastIndexOf(')') + 2).split(" ", 2)[0];
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    private static String command(long pid) throws IOException {
        return Files.readString(Path.of("/proc", Long.toString(pid), "comm")).strip();
    }

    /** The child JVM: starts one server (paused if asked), prints its pid, then waits to be killed. */
    public static final class StartsRedisAndWaits {

        private StartsRedisAndWaits() {
        }

        public static void main(String[] args) throws Exception {
            RedisProcess redis = RedisProcess.start(List.of());
            if (Boolean.parseBoolean(args[0])) {
                redis.pause();
            }
            System.out.println("redis-server " + redis.pid());
            System.out.flush();
            // Blocks until this JVM is killed: the parent never writes to or closes this pipe first.
            System.in.read();
        }
    }
}
