package dev.sluice.test;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;
import org.opentest4j.TestAbortedException;

import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

import java.util.ArrayList;
import java.util.List;

/**
 * N independent {@code redis-server} masters (no replication between them) for a test class, as a JUnit 5
 * extension, for Redlock:
 *
 * <pre>{@code
 * @RegisterExtension static RedisMasters masters = RedisMasters.of(5);
 * }</pre>
 *
 * <p>Before each test every master is resumed if paused, restarted if stopped or killed, and emptied. After the
 * class every master is killed and forgotten, so that running the class again in the same JVM (an IDE, PIT) starts
 * N fresh masters instead of restarting the old ones next to the new. When a test fails, the masters' log tails
 * are printed to standard error. Needs the {@code redis-server} binary; without it the tests are skipped.
 *
 * <p>Not thread-safe for concurrent lifecycle calls; the accessors may be used from any thread.
 */
public final class RedisMasters implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, TestWatcher {

    private final int count;
    private final List<RedisProcess> masters = new ArrayList<>();

    private RedisMasters(int count) {
        this.count = count;
    }

    /** {@code count} masters. */
    public static RedisMasters of(int count) {
        return new RedisMasters(count);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        try {
            ensureStarted();
        } catch (TestAbortedException noBinary) {
            // Surefire does not report a class aborted in beforeAll at all; beforeEach skips each test visibly.
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        ensureStarted();
        for (RedisProcess master : masters) {
            master.resume();
            if (!master.isRunning()) {
                master.restart();
            }
            try (Jedis jedis = new Jedis(new HostAndPort(master.host(), master.port()),
                    DefaultJedisClientConfig.builder().clientName(RedisServer.ADMIN_CLIENT_NAME).timeoutMillis(5000)
                            .build())) {
                jedis.flushAll();
            }
        }
    }

    @Override
    public synchronized void afterAll(ExtensionContext context) {
        masters.forEach(RedisProcess::close);
        masters.clear();
    }

    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        for (RedisProcess master : masters) {
            System.err.println("Redlock master " + master.address() + " logged to " + master.logFile()
                    + "; last lines:" + System.lineSeparator() + master.logTail(15));
        }
    }

    /** The masters, in start order, to kill or pause one. */
    public synchronized List<RedisProcess> processes() {
        ensureStarted();
        return List.copyOf(masters);
    }

    /** The first {@code n} masters. */
    public List<RedisProcess> first(int n) {
        return processes().subList(0, n);
    }

    /** The masters' processes that are alive now (paused ones included). */
    public synchronized long running() {
        return masters.stream().filter(RedisProcess::isRunning).count();
    }

    private synchronized void ensureStarted() {
        if (!masters.isEmpty()) {
            return;
        }
        RedisProcess.assumeBinary();
        try {
            for (int i = 0; i < count; i++) {
                masters.add(RedisProcess.start());
            }
        } catch (RuntimeException e) {
            masters.forEach(RedisProcess::close);
            masters.clear();
            throw e;
        }
    }
}
