package dev.sluice.servers;

import dev.sluice.test.RedisServer;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fills in the system properties that {@code arquillian.xml} refers to, before Arquillian reads it (so it
 * must be registered after the Redis fixture and before Arquillian's extension): {@code sluice.it.redis.uri},
 * which the server gets as {@code -Dsluice.redis.uri} and the sample reads through the server's MicroProfile
 * Config, and WildFly's management port moved by {@code sluice.it.wildfly.port-offset}.
 */
public final class ServerProperties implements BeforeAllCallback {

    /** WildFly's HTTP port before the offset. */
    public static final int WILDFLY_HTTP_PORT = 8080;
    /** WildFly's management port before the offset. */
    public static final int WILDFLY_MANAGEMENT_PORT = 9990;

    private final RedisServer redis;

    public ServerProperties(RedisServer redis) {
        this.redis = redis;
    }

    /** The offset that {@code -Djboss.socket.binding.port-offset} moves every WildFly port by. */
    public static int wildflyPortOffset() {
        return Integer.getInteger("sluice.it.wildfly.port-offset", 0);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        System.setProperty("sluice.it.redis.uri", redis.uri());
        System.setProperty("sluice.it.wildfly.management-port",
                String.valueOf(WILDFLY_MANAGEMENT_PORT + wildflyPortOffset()));
    }
}
