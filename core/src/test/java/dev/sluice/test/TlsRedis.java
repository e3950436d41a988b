package dev.sluice.test;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code redis-server} that speaks TLS on a free port with a server certificate for {@code 127.0.0.1} issued by
 * a private CA made with {@code openssl} at test time, and a PKCS12 truststore holding that CA, as an operator
 * would set it up (docs/operations.md). The JVM's default {@code SSLContext} is fixed at first use, so clients
 * that must trust the CA run in a child JVM ({@link #runJava}) started with the standard
 * {@code javax.net.ssl.trustStore} properties. Skips the test when {@code redis-server} or {@code openssl} is
 * missing.
 */
public final class TlsRedis implements AutoCloseable {

    public static final String TRUSTSTORE_PASSWORD = "changeit";

    private final RedisProcess redis;
    private final int tlsPort;
    private final Path truststore;

    private TlsRedis(RedisProcess redis, int tlsPort, Path truststore) {
        this.redis = redis;
        this.tlsPort = tlsPort;
        this.truststore = truststore;
    }

    /**
     * Makes the CA, the server certificate and the truststore in {@code dir}, and starts the server.
     *
     * @param extraArgs further {@code redis-server} arguments, e.g. {@code --requirepass}
     */
    public static TlsRedis start(Path dir, String... extraArgs) throws IOException, InterruptedException,
            GeneralSecurityException {
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
        Path truststore = dir.resolve("truststore.p12");
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        try (InputStream in = Files.newInputStream(caCert)) {
            store.setCertificateEntry("sluice-test-ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        try (OutputStream out = Files.newOutputStream(truststore)) {
            store.store(out, TRUSTSTORE_PASSWORD.toCharArray());
        }
        int tlsPort = RedisProcess.freePort();
        List<String> args = new ArrayList<>(List.of("--tls-port", String.valueOf(tlsPort), "--tls-cert-file",
                cert.toString(), "--tls-key-file", key.toString(), "--tls-ca-cert-file", caCert.toString(),
                "--tls-auth-clients", "no"));
        args.addAll(List.of(extraArgs));
        return new TlsRedis(RedisProcess.start(args), tlsPort, truststore);
    }

    public int tlsPort() {
        return tlsPort;
    }

    /**
     * Runs {@code main} in a child JVM on this JVM's class path and returns what it printed; fails the test when
     * it exits with an error or does not finish within a minute.
     *
     * @param trustTheCa whether the child JVM's default truststore is the one holding the test CA
     */
    public String runJava(boolean trustTheCa, Class<?> main, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path")));
        if (trustTheCa) {
            command.addAll(List.of("-Djavax.net.ssl.trustStore=" + truststore,
                    "-Djavax.net.ssl.trustStorePassword=" + TRUSTSTORE_PASSWORD,
                    "-Djavax.net.ssl.trustStoreType=PKCS12"));
        }
        command.add(main.getName());
        command.addAll(List.of(args));
        return run(command);
    }

    @Override
    public void close() {
        redis.close();
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
}
