package dev.sluice.test;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The last resort of {@link RedisServer}: one {@code redis:7} container shared by the JVM, started on first use
 * and removed by Testcontainers when the JVM exits. Only loaded once Testcontainers is known to be on the class
 * path, so that modules reusing the fixture without it are unaffected.
 */
final class ContainerRedis {

    /** Where the container's Redis port is published. */
    record Address(String host, int port) {
    }

    private static final int REDIS_PORT = 6379;
    private static GenericContainer<?> container;

    private ContainerRedis() {
    }

    static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    static synchronized Address start() {
        if (container == null) {
            GenericContainer<?> redis = new GenericContainer<>(DockerImageName.parse("redis:7"))
                    .withExposedPorts(REDIS_PORT)
                    .withCommand("redis-server", "--save", "", "--appendonly", "no");
            redis.start();
            container = redis;
        }
        return new Address(container.getHost(), container.getMappedPort(REDIS_PORT));
    }
}
