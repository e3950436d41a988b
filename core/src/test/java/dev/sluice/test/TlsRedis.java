package dev.sluice.test;

import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@code redis-server} that speaks TLS on a free port with a server certificate for {@code 127.0.0.1} issued by
 * a private CA ({@link TestCertificates}). Clients that must trust the CA run in a child JVM ({@link #runJava}).
 * Skips the test when {@code redis-server} or {@code openssl} is missing.
 */
public final class TlsRedis implements AutoCloseable {

    public static final String TRUSTSTORE_PASSWORD = TestCertificates.TRUSTSTORE_PASSWORD;

    private final RedisProcess redis;
    private final int tlsPort;
    private final TestCertificates certificates;

    private TlsRedis(RedisProcess redis, int tlsPort, TestCertificates certificates) {
        this.redis = redis;
        this.tlsPort = tlsPort;
        this.certificates = certificates;
    }

    /**
     * Makes the CA, the server certificate and the truststore in {@code dir}, and starts the server.
     *
     * @param extraArgs further {@code redis-server} arguments, e.g. {@code --requirepass}
     */
    public static TlsRedis start(Path dir, String... extraArgs) throws IOException, InterruptedException,
            GeneralSecurityException {
        RedisProcess.assumeBinary();
        TestCertificates certificates = TestCertificates.create(dir);
        int tlsPort = RedisProcess.freePort();
        List<String> args = new ArrayList<>(certificates.serverArgs(tlsPort));
        args.addAll(List.of(extraArgs));
        return new TlsRedis(RedisProcess.start(args), tlsPort, certificates);
    }

    public int tlsPort() {
        return tlsPort;
    }

    /** See {@link TestCertificates#runJava}. */
    public String runJava(boolean trustTheCa, Class<?> main, String... args) throws IOException, InterruptedException {
        return certificates.runJava(trustTheCa, main, args);
    }

    @Override
    public void close() {
        redis.close();
    }
}
