package dev.sluice.test;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A private CA made with {@code openssl} at test time, a server certificate for {@code 127.0.0.1} it issued, and a
 * PKCS12 truststore holding the CA, as an operator would set them up (docs/operations.md). Every TLS server of a
 * test (a standalone Redis, sentinels, cluster nodes) uses the same server certificate.
 *
 * <p>The JVM's default {@code SSLContext} is fixed at first use, so clients that must trust the CA run in a child
 * JVM ({@link #runJava}) started with the standard {@code javax.net.ssl.trustStore} properties. Skips the test when
 * {@code openssl} is missing. Immutable.
 */
public final class TestCertificates {

    public static final String TRUSTSTORE_PASSWORD = "changeit";
    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private final Path caCert;
    private final Path cert;
    private final Path key;
    private final Path truststore;

    private TestCertificates(Path caCert, Path cert, Path key, Path truststore) {
        this.caCert = caCert;
        this.cert = cert;
        this.key = key;
        this.truststore = truststore;
    }

    /** Makes the CA, the server certificate and the truststore in {@code dir}. */
    public static TestCertificates create(Path directory) throws IOException, InterruptedException,
            GeneralSecurityException {
        // Absolute: redis-server runs in a directory of its own.
        Path dir = directory.toAbsolutePath();
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
        // clientAuth too: cluster nodes and replicas present this certificate when they connect to each other.
        Files.writeString(extensions, "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n"
                + "keyUsage=digitalSignature\nextendedKeyUsage=serverAuth,clientAuth\n");
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
        return new TestCertificates(caCert, cert, key, truststore);
    }

    /** As {@link #create(Path)}, in a new directory under {@code target/tls-fixture/}; checked exceptions unchecked. */
    public static TestCertificates create() {
        Path target = Path.of("target");
        Path base = Files.isDirectory(target) ? target.resolve("tls-fixture")
                : Path.of(System.getProperty("java.io.tmpdir"), "sluice-tls-fixture");
        try {
            Path dir = Files.createDirectories(base.resolve(ProcessHandle.current().pid() + "-"
                    + SEQUENCE.incrementAndGet()));
            return create(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code redis-server} options serving TLS on {@code tlsPort} with this certificate; clients need none. */
    public List<String> serverArgs(int tlsPort) {
        List<String> args = new ArrayList<>();
        for (String line : configLines(tlsPort)) {
            int space = line.indexOf(' ');
            args.add("--" + line.substring(0, space));
            args.add(line.substring(space + 1));
        }
        return args;
    }

    /** The same as config-file lines, for a sentinel. */
    public List<String> configLines(int tlsPort) {
        return List.of("tls-port " + tlsPort, "tls-cert-file " + cert, "tls-key-file " + key,
                "tls-ca-cert-file " + caCert, "tls-auth-clients no");
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
