package dev.sluice.test;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

class FaultyProxyTest {

    @RegisterExtension
    static RedisServer redis = RedisServer.standalone();

    private FaultyProxy proxy;

    @BeforeEach
    void start() {
        proxy = FaultyProxy.start(redis.host(), redis.port());
    }

    @AfterEach
    void stop() {
        proxy.close();
    }

    @Test
    void passesCommandsAndRepliesThrough() {
        try (Jedis jedis = client(2000)) {
            assertThat(jedis.set("k", "v")).isEqualTo("OK");
            assertThat(jedis.get("k")).isEqualTo("v");
        }
        assertThat(proxy.accepted()).isEqualTo(1);
    }

    @Test
    void aDroppedReplyLeavesTheCommandRunButTheClientTimesOut() {
        try (Jedis jedis = client(300)) {
            jedis.ping();
            proxy.dropReplies(true);
            assertThatThrownBy(() -> jedis.set("lost", "ran")).isInstanceOf(JedisConnectionException.class);
        }
        assertThat(redis.admin().get("lost")).as("the command reached Redis").isEqualTo("ran");
        assertThat(proxy.swallowedBytes()).isPositive();
    }

    @Test
    void refusesNewConnectionsAndCutsOpenOnes() {
        try (Jedis open = client(2000)) {
            open.ping();
            proxy.refuse(true);
            proxy.cutAll();
            assertThatThrownBy(open::ping).as("cut").isInstanceOf(JedisConnectionException.class);
        }
        assertThatThrownBy(() -> {
            try (Jedis fresh = client(2000)) {
                fresh.ping();
            }
        }).as("refused").isInstanceOf(JedisConnectionException.class);
        assertThat(proxy.refused()).isEqualTo(1);

        proxy.heal();
        try (Jedis healed = client(2000)) {
            assertThat(healed.ping()).isEqualTo("PONG");
        }
    }

    @Test
    void aStalledLinkDeliversNothingUntilItResumes() throws Exception {
        try (Jedis jedis = client(10_000)) {
            jedis.ping();
            proxy.stall(true);
            CompletableFuture<String> reply = CompletableFuture.supplyAsync(() -> jedis.set("late", "v"));
            await().atMost(Duration.ofSeconds(5)).until(() -> proxy.heldChunks() == 1);
            assertThat(redis.admin().exists("late")).as("the command is held back").isFalse();
            assertThat(reply).isNotCompleted();

            proxy.stall(false);
            assertThat(reply.get(10, TimeUnit.SECONDS)).isEqualTo("OK");
        }
    }

    @Test
    void holdsEveryChunkForTheLatency() {
        try (Jedis jedis = client(5000)) {
            jedis.ping();
            proxy.latency(Duration.ofMillis(100));
            long started = System.nanoTime();
            jedis.ping();
            // A lower bound only (request and reply each wait at least the latency): never an upper one.
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(200));
        }
    }

    private Jedis client(int timeoutMillis) {
        return new Jedis(new HostAndPort(proxy.host(), proxy.port()),
                DefaultJedisClientConfig.builder().timeoutMillis(timeoutMillis).build());
    }
}
