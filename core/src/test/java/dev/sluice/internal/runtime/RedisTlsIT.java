package dev.sluice.internal.runtime;

import dev.sluice.LockHandle;
import dev.sluice.Permit;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.test.TlsRedis;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Protocol;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sluice end to end over {@code rediss://}: a private CA and a server certificate for 127.0.0.1 made with
 * {@code openssl} at test time, a {@code redis-server} with {@code tls-port} and a password, and an application (a
 * child JVM, since the JVM's default truststore is fixed at first use) that trusts the CA through the standard
 * {@code javax.net.ssl.trustStore} system properties, as docs/operations.md describes. Rate limits, a lock handed
 * over between two nodes through the release channel, and a semaphore all run over TLS, and every connection the
 * application opened is on the TLS port.
 */
class RedisTlsIT {

    private static final String PASSWORD = "Tls-pw-81c3";

    @TempDir
    static Path dir;
    private static TlsRedis redis;

    @BeforeEach
    void startRedisWithACertificateFromAPrivateCaOnce() throws Exception {
        if (redis == null) {
            redis = TlsRedis.start(dir, "--requirepass", PASSWORD);
        }
    }

    @AfterAll
    static void stop() {
        if (redis != null) {
            redis.close();
            redis = null;
        }
    }

    @Test
    void rateLimitsLocksAndSemaphoresWorkOverTlsWithTheCaInTheJvmTruststore() throws Exception {
        String output = redis.runJava(true, Scenario.class, "rediss://:" + PASSWORD + "@127.0.0.1:" + redis.tlsPort(),
                String.valueOf(redis.tlsPort()));
        List<String> verdict = output.lines()
                .filter(l -> l.matches("(RATE|LOCK|SEMAPHORE|CONNECTIONS|OK|FAILED).*")).toList();

        assertThat(verdict).as(output).containsExactly("RATE [true, true, true, false]",
                "LOCK handed over with a higher token", "SEMAPHORE one holder",
                "CONNECTIONS all on port " + redis.tlsPort(), "OK");
    }

    /** Runs in the child JVM: two application nodes over {@code rediss://}; prints one verdict line per feature. */
    public static final class Scenario {
        public static void main(String[] args) throws Exception {
            SluiceConfig config = SluiceConfigLoader.load(ConfigSources.of(Map.of(
                    "sluice.redis.uri", args[0], "sluice.limit.strict.rate", "3/1h")));
            int tlsPort = Integer.parseInt(args[1]);
            try (SluiceRuntime node = SluiceRuntime.start(config); SluiceRuntime otherNode = SluiceRuntime.start(config)) {
                PolicyConfig strict = config.policy("strict").orElseThrow();
                List<Boolean> allowed = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    allowed.add(node.rateLimits().decide(strict, "192.0.2.1", 1).allowed());
                }
                System.out.println("RATE " + allowed);

                ExecutorService other = Executors.newSingleThreadExecutor();
                long first;
                Future<Long> second;
                try (LockHandle held = node.locks().lock("order:1").acquire(Duration.ofSeconds(5), Duration.ZERO)) {
                    first = held.fencingToken();
                    second = other.submit(() -> {
                        try (LockHandle next = otherNode.locks().lock("order:1").acquire(Duration.ofSeconds(5),
                                Duration.ofSeconds(10))) {
                            return next.fencingToken();
                        }
                    });
                }
                System.out.println(second.get(20, TimeUnit.SECONDS) > first ? "LOCK handed over with a higher token"
                        : "FAILED lock token did not increase");
                other.shutdown();

                try (Permit permit = node.locks().semaphore("pdf", 1).acquire(Duration.ofSeconds(5), Duration.ZERO)) {
                    boolean secondHolder = otherNode.locks().semaphore("pdf", 1).tryAcquire(Duration.ofSeconds(5))
                            .isPresent();
                    System.out.println(!secondHolder && permit.isHeld() ? "SEMAPHORE one holder"
                            : "FAILED semaphore admitted a second holder");
                }

                Object reply = node.redis().orElseThrow().client()
                        .executeCommand(new CommandArguments(Protocol.Command.CLIENT).add("LIST"));
                String clients = reply instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(reply);
                List<String> sluice = clients.lines().filter(l -> l.contains(" name=sluice ")).toList();
                boolean allTls = !sluice.isEmpty() && sluice.stream().allMatch(l -> l.contains(" laddr=127.0.0.1:"
                        + tlsPort + " "));
                System.out.println(allTls ? "CONNECTIONS all on port " + tlsPort : "FAILED connections " + sluice);
                System.out.println("OK");
            } catch (RuntimeException e) {
                System.out.println("FAILED " + e);
                e.printStackTrace(System.out);
            }
        }
    }
}
