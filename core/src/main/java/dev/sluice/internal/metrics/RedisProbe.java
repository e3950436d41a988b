package dev.sluice.internal.metrics;

import dev.sluice.internal.config.RedisSettings;
import dev.sluice.internal.redis.RedisConnector;
import dev.sluice.internal.redis.RedisFailures;

import java.util.Locale;
import java.util.Optional;

/**
 * Asks an application's Redis for {@code PING}, for the readiness check: up when it answers within
 * {@code sluice.redis.timeout} (the connector's connect and socket timeout bound the call), down otherwise.
 * The in-process store is always up. The outcome also feeds {@link RedisStatus}, so an outage is logged
 * even when no request arrives.
 *
 * <p>After Redis restarts, the pool's idle connections are dead and the first {@code PING} on one fails at
 * once; a failure that came back in less than half the timeout is therefore retried once on a fresh
 * connection, so a restarted Redis is not reported down. A Redis that does not answer at all is not retried,
 * and is reported down after one timeout. Stateless.
 */
public final class RedisProbe {

    /**
     * What one probe found.
     *
     * @param up    Redis answered (or there is no Redis to ask)
     * @param mode  {@code standalone}, {@code sentinel}, {@code cluster} or {@code in-process}
     * @param error why it is down, without credentials; empty when up
     */
    public record Result(boolean up, String mode, Optional<String> error) {
    }

    private RedisProbe() {
    }

    /** The mode as the health check reports it: {@code standalone}, {@code sentinel}, {@code cluster}, {@code in-process}. */
    public static String mode(RedisSettings settings) {
        return settings.mode().name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * @param redis  the application's connector; empty for the in-process store
     * @param status told the outcome
     */
    public static Result probe(Optional<RedisConnector> redis, RedisSettings settings, RedisStatus status) {
        String mode = mode(settings);
        if (redis.isEmpty()) {
            return new Result(true, mode, Optional.empty());
        }
        RedisConnector connector = redis.get();
        long started = System.nanoTime();
        try {
            ping(connector);
        } catch (RuntimeException first) {
            if (System.nanoTime() - started >= settings.timeout().toNanos() / 2) {
                return down(first, mode, settings, status);
            }
            connector.discardIdleConnections();
            try {
                ping(connector);
            } catch (RuntimeException second) {
                return down(second, mode, settings, status);
            }
        }
        status.answered();
        return new Result(true, mode, Optional.empty());
    }

    private static void ping(RedisConnector connector) {
        String reply = connector.client().ping();
        if (!"PONG".equalsIgnoreCase(reply)) {
            throw new IllegalStateException("PING answered " + reply);
        }
    }

    private static Result down(RuntimeException failure, String mode, RedisSettings settings, RedisStatus status) {
        status.failed(failure);
        return new Result(false, mode, Optional.of(RedisFailures.describe(failure, settings)));
    }
}
