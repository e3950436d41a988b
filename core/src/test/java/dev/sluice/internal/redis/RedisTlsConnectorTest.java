package dev.sluice.internal.redis;

import dev.sluice.SluiceConfigException;
import dev.sluice.internal.config.RedisSettings;
import dev.sluice.test.RedisProcess;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code rediss://} with the JVM's default truststore. The default {@code SSLContext} is fixed once a JVM first
 * uses it, so each scenario runs in a child JVM started with {@code -Djavax.net.ssl.trustStore=...} (or without).
 */
class RedisTlsConnectorTest {

    private static final String TRUSTSTORE_PASSWORD = "changeit";

    @TempDir
    static Path dir;
    private static RedisProcess redis;
    private static int tlsPort;
    private static Path truststore;

    @BeforeEach
    void startTlsRedisWithASelfSignedCertificateFor127001Once() throws Exception {
        if (redis != null) {
            return;
        }
        RedisProcess.assumeBinary();
        Path key = dir.resolve("key.pem");
        Path cert = dir.resolve("cert.pem");
        run(List.of("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key.toString(),
                "-out", cert.toString(), "-days", "2", "-subj", "/CN=sluice-test",
                "-addext", "subjectAltName=IP:127.0.0.1"));
        truststore = dir.resolve("truststore.p12");
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        try (InputStream in = Files.newInputStream(cert)) {
            store.setCertificateEntry("redis", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        try (OutputStream out = Files.newOutputStream(truststore)) {
            store.store(out, TRUSTSTORE_PASSWORD.toCharArray());
        }
        tlsPort = RedisProcess.freePort();
        redis = RedisProcess.start("--tls-port", String.valueOf(tlsPort), "--tls-cert-file", cert.toString(),
                "--tls-key-file", key.toString(), "--tls-ca-cert-file", cert.toString(), "--tls-auth-clients", "no");
    }

    @AfterAll
    static void stop() {
        if (redis != null) {
            redis.close();
            redis = null;
        }
    }

    @Test
    void talksTlsToAServerTheDefaultTruststoreTrusts() throws Exception {
        assertThat(probe(true, "rediss://127.0.0.1:" + tlsPort)).isEqualTo("OK PONG");
    }

    @Test
    void aCertificateNamingAnotherHostFailsTheDeploymentNamingTheUri() throws Exception {
        assertThat(probe(true, "rediss://localhost:" + tlsPort)).isEqualTo("CONFIG sluice.redis.uri");
    }

    @Test
    void anUntrustedCertificateFailsTheDeploymentNamingTheUri() throws Exception {
        assertThat(probe(false, "rediss://127.0.0.1:" + tlsPort)).isEqualTo("CONFIG sluice.redis.uri");
    }

    /** Connects from a child JVM and returns its verdict line. */
    private static String probe(boolean trust, String uri) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path")));
        if (trust) {
            command.addAll(List.of("-Djavax.net.ssl.trustStore=" + truststore,
                    "-Djavax.net.ssl.trustStorePassword=" + TRUSTSTORE_PASSWORD,
                    "-Djavax.net.ssl.trustStoreType=PKCS12"));
        }
        command.addAll(List.of(Probe.class.getName(), uri));
        String output = run(command);
        List<String> lines = output.lines().filter(l -> l.startsWith("OK") || l.startsWith("CONFIG")
                || l.startsWith("FAILED")).toList();
        assertThat(lines).as(output).hasSize(1);
        return lines.get(0);
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

    /** Runs in the child JVM: connects, pings, prints one verdict line. */
    public static final class Probe {
        public static void main(String[] args) {
            RedisSettings settings = new RedisSettings(Optional.of(args[0]), List.of(), Optional.empty(), List.of(),
                    List.of(), Optional.empty(), Optional.empty(), 0, true, Duration.ofSeconds(2),
                    RedisSettings.Pool.DEFAULT);
            try (RedisConnector connector = RedisConnector.connect(settings)) {
                System.out.println(connector.ping() ? "OK " + connector.client().ping() : "FAILED ping");
            } catch (SluiceConfigException e) {
                System.out.println("CONFIG " + e.key());
                System.out.println(e.getMessage());
            }
        }
    }
}
