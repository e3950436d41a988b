package dev.sluice.test;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RedisServerTest {

    @RegisterExtension
    static RedisServer redis = RedisServer.standalone();

    @Test
    void answersOnALoopbackPort() {
        assertThat(redis.host()).isEqualTo("127.0.0.1");
        assertThat(redis.uri()).isEqualTo("redis://127.0.0.1:" + redis.port());
        assertThat(redis.admin().ping()).isEqualTo("PONG");
    }

    @Test
    void startsEachTestEmptyWithFreshStatistics() {
        redis.admin().set("left-over", "x");
        redis.admin().set("left-over", "y");
        assertThat(redis.commandCount("set")).isEqualTo(2);

        redis.flushAll();
        redis.resetStats();

        assertThat(redis.admin().exists("left-over")).isFalse();
        assertThat(redis.commandCount("set")).isZero();
    }

    @Test
    void restartsOnTheSamePortSoClientsReconnect() {
        redis.assumeControllable();
        int port = redis.port();
        redis.admin().set("k", "v");

        redis.stop();
        assertThatThrownBy(() -> ping(redis.port(), 500)).isInstanceOf(JedisConnectionException.class)
                .satisfies(e -> assertThat(e.getSuppressed()).as("refused").hasAtLeastOneElementOfType(
                        ConnectException.class));
        redis.start();

        assertThat(redis.port()).isEqualTo(port);
        assertThat(redis.admin().ping()).isEqualTo("PONG");
        assertThat(redis.admin().exists("k")).as("nothing is persisted").isFalse();
    }

    @Test
    void killDropsTheServerWithoutGoodbye() {
        redis.assumeControllable();
        long pid = redis.process().orElseThrow().pid();

        redis.kill();

        assertThat(ProcessHandle.of(pid)).isEmpty();
        assertThatThrownBy(() -> ping(redis.port(), 500)).isInstanceOf(JedisConnectionException.class);
        redis.start();
        assertThat(ping(redis.port(), 500)).isEqualTo("PONG");
    }

    @Test
    void pauseMakesRedisHangRatherThanRefuse() {
        redis.assumeControllable();
        redis.pause();
        try {
            assertThatThrownBy(() -> ping(redis.port(), 200)).hasRootCauseInstanceOf(SocketTimeoutException.class);
        } finally {
            redis.resume();
        }
        assertThat(ping(redis.port(), 500)).isEqualTo("PONG");
    }

    @Test
    void countsConnectionsByClientName() {
        try (Jedis named = new Jedis(new HostAndPort(redis.host(), redis.port()),
                DefaultJedisClientConfig.builder().clientName("counted").password(redis.password().orElse(null))
                        .build())) {
            named.ping();
            assertThat(redis.clientCount("counted")).isEqualTo(1);
        }
    }

    @Test
    void extraServersRunWithTheirOwnArguments() throws Exception {
        RedisProcess guarded = RedisProcess.start(List.of("--requirepass", "extra-secret"));
        try {
            assertThat(guarded.port()).isNotEqualTo(redis.port());
            assertThat(RedisProcess.send(Optional.empty(), guarded.host(), guarded.port(), List.of("GET", "x")))
                    .startsWith("-NOAUTH");
            assertThat(RedisProcess.send(Optional.of("extra-secret"), guarded.host(), guarded.port(),
                    List.of("PING"))).isEqualTo("+PONG");
        } finally {
            guarded.close();
        }
        assertThat(guarded.isRunning()).isFalse();
    }

    private static String ping(int port, int timeoutMillis) {
        try (Jedis jedis = new Jedis(new HostAndPort("127.0.0.1", port),
                DefaultJedisClientConfig.builder().timeoutMillis(timeoutMillis).build())) {
            return jedis.ping();
        }
    }
}
