package dev.sluice.internal.redis;

import dev.sluice.SluiceConfigException;

import org.junit.jupiter.api.Test;

import redis.clients.jedis.HostAndPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RedisAddressTest {

    @Test
    void readsHostAndPortOfTheUriIncludingContainerStyleNames() {
        assertThat(RedisConnector.uriAddress("redis://redis_1:6380/2")).isEqualTo(new HostAndPort("redis_1", 6380));
        assertThat(RedisConnector.uriAddress("rediss://cache.example:6390")).isEqualTo(
                new HostAndPort("cache.example", 6390));
    }

    @Test
    void defaultsThePortTo6379() {
        assertThat(RedisConnector.uriAddress("redis://cache/0")).isEqualTo(new HostAndPort("cache", 6379));
        assertThat(RedisConnector.uriAddress("redis://[::1]")).isEqualTo(new HostAndPort("::1", 6379));
    }

    @Test
    void unwrapsIpv6Literals() {
        assertThat(RedisConnector.uriAddress("redis://[::1]:7000/1")).isEqualTo(new HostAndPort("::1", 7000));
        assertThat(RedisConnector.address("sluice.redis.sentinels", "[::1]:26379"))
                .isEqualTo(new HostAndPort("::1", 26379));
    }

    @Test
    void badPortsNameTheKeyWithoutCredentials() {
        assertThatThrownBy(() -> RedisConnector.uriAddress("redis://app:Secret-pw@cache:99999"))
                .isInstanceOfSatisfying(SluiceConfigException.class,
                        e -> assertThat(e.key()).isEqualTo("sluice.redis.uri"))
                .hasMessageContaining("\"redis://****@cache:99999\"")
                .hasMessageNotContaining("Secret-pw");
        assertThatThrownBy(() -> RedisConnector.address("sluice.redis.cluster-nodes", "node-1"))
                .isInstanceOf(SluiceConfigException.class)
                .hasMessageContaining("sluice.redis.cluster-nodes: \"node-1\"");
    }
}
