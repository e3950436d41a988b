package dev.sluice.internal.redis;

import java.util.Map;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.config.ConfigSources;
import dev.sluice.SluiceConfigException;
import dev.sluice.internal.config.RedisSettings;
import dev.sluice.test.TlsRedis;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code rediss://} with the JVM's default truststore. The default {@code SSLContext} is fixed once a JVM first
 * uses it, so each scenario runs in a child JVM started with {@code -Djavax.net.ssl.trustStore=...} (or without).
 */
class RedisTlsConnectorTest {

    @TempDir
    static Path dir;
    private static TlsRedis redis;

    @BeforeEach
    void startTlsRedisWithACertificateFor127001Once() throws Exception {
        if (redis == null) {
            redis = TlsRedis.start(dir);
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
    void talksTlsToAServerTheDefaultTruststoreTrusts() throws Exception {
        assertThat(probe(true, "rediss://127.0.0.1:" + redis.tlsPort())).isEqualTo("OK PONG");
    }

    @Test
    void aCertificateNamingAnotherHostFailsTheDeploymentNamingTheUri() throws Exception {
        assertThat(probe(true, "rediss://localhost:" + redis.tlsPort())).isEqualTo("CONFIG sluice.redis.uri");
    }

    @Test
    void anUntrustedCertificateFailsTheDeploymentNamingTheUri() throws Exception {
        assertThat(probe(false, "rediss://127.0.0.1:" + redis.tlsPort())).isEqualTo("CONFIG sluice.redis.uri");
    }

    /** Connects from a child JVM and returns its verdict line. */
    private static String probe(boolean trust, String uri) throws Exception {
        String output = redis.runJava(trust, Probe.class, uri);
        List<String> lines = output.lines().filter(l -> l.startsWith("OK") || l.startsWith("CONFIG")
                || l.startsWith("FAILED")).toList();
        assertThat(lines).as(output).hasSize(1);
        return lines.get(0);
    }

    /** Runs in the child JVM: connects, pings, prints one verdict line. */
    public static final class Probe {
        public static void main(String[] args) {
            RedisSettings settings = SluiceConfigLoader.load(ConfigSources.of(Map.of("sluice.redis.uri", args[0])))
                    .redis();
            try (RedisConnector connector = RedisConnector.connect(settings)) {
                System.out.println(connector.ping() ? "OK " + connector.client().ping() : "FAILED ping");
            } catch (SluiceConfigException e) {
                System.out.println("CONFIG " + e.key());
                System.out.println(e.getMessage());
            }
        }
    }
}
