package dev.sluice.internal.runtime;

import dev.sluice.LockHandle;
import dev.sluice.Permit;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.test.RedisProcess;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Protocol;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
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
    private static final String TRUSTSTORE_PASSWORD = "changeit";

    @TempDir
    static Path dir;
    private static RedisProcess redis;
    private static int tlsPort;
    private static Path truststore;

    @BeforeEach
    void startRedisWithACertificateFromAPrivateCaOnce() throws Exception {
        if (redis != null) {
            return;
        }
        RedisProcess.assumeBinary();
        Path caKey = dir.resolve("ca.key");
        Path caCert = dir.resolve("ca.crt");
        Path key = dir.resolve("server.key");
        Path csr = dir.resolve("server.csr");
        Path cert = dir.resolve("server.crt");
        Path extensions = dir.resolve("server.ext");
        // EC keys: generated in milliseconds, where RSA keys take a noticeable part of a second.
        List<String> newKey = List.of("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes");
        run(concat(List.of("openssl", "req", "-x509"), newKey, List.of("-keyout", caKey.toString(), "-out",
                caCert.toString(), "-days", "2", "-subj", "/CN=Sluice test CA")));
        run(concat(List.of("openssl", "req"), newKey, List.of("-keyout", key.toString(), "-out", csr.toString(),
                "-subj", "/CN=127.0.0.1")));
        Files.writeString(extensions, "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n"
                + "keyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n");
        run(List.of("openssl", "x509", "-req", "-in", csr.toString(), "-CA", caCert.toString(), "-CAkey",
                caKey.toString(), "-CAcreateserial", "-out", cert.toString(), "-days", "2", "-extfile",
                extensions.toString()));
        truststore = dir.resolve("truststore.p12");
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        try (InputStream in = Files.newInputStream(caCert)) {
            store.setCertificateEntry("sluice-test-ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        try (OutputStream out = Files.newOutputStream(truststore)) {
            store.store(out, TRUSTSTORE_PASSWORD.toCharArray());
        }
        tlsPort = RedisProcess.freePort();
        redis = RedisProcess.start("--tls-port", String.valueOf(tlsPort), "--tls-cert-file", cert.toString(),
                "--tls-key-file", key.toString(), "--tls-ca-cert-file", caCert.toString(), "--tls-auth-clients", "no",
                "--requirepass", PASSWORD);
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
        List<String> verdict = runScenario("rediss://:" + PASSWORD + "@127.0.0.1:" + tlsPort);

        assertThat(verdict).containsExactly("RATE [true, true, true, false]", "LOCK handed over with a higher token",
                "SEMAPHORE one holder", "CONNECTIONS all on port " + tlsPort, "OK");
    }

    /** Runs {@link Scenario} in a child JVM that trusts the test CA and returns its verdict lines. */
    private static List<String> runScenario(String uri) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"),
                "-Djavax.net.ssl.trustStore=" + truststore,
                "-Djavax.net.ssl.trustStorePassword=" + TRUSTSTORE_PASSWORD,
                "-Djavax.net.ssl.trustStoreType=PKCS12",
                Scenario.class.getName(), uri, String.valueOf(tlsPort)));
        String output = run(command);
        List<String> lines = output.lines().filter(l -> l.matches("(RATE|LOCK|SEMAPHORE|CONNECTIONS|OK|FAILED).*"))
                .toList();
        assertThat(lines).as(output).isNotEmpty().doesNotContain("FAILED");
        return lines;
    }

    @SafeVarargs
    private static List<String> concat(List<String>... parts) {
        List<String> all = new ArrayList<>();
        for (List<String> part : parts) {
            all.addAll(part);
        }
        return all;
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        Process process;
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            Assumptions.abort("cannot run " + command.get(0) + ": " + e.getMessage());
            throw e;
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("%s finished", command.get(0)).isTrue();
        assertThat(process.exitValue()).as(output).isZero();
        return output;
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
