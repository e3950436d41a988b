package dev.sluice.internal.cdi;

import dev.sluice.SluiceException;
import dev.sluice.internal.metrics.RedisProbe;
import dev.sluice.internal.runtime.SluiceRuntime;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The readiness check {@value #NAME}: up when the application's Redis answers {@code PING} within
 * {@code sluice.redis.timeout} (always up with the in-process store), with the mode
 * ({@code standalone}, {@code sentinel}, {@code cluster}, {@code in-process}) and the metrics app id as data,
 * and the reason as {@code error} when down. Down as well while Sluice is not running (before deployment
 * finished, after shutdown).
 *
 * <p>Added by {@link SluiceExtension} only when the MicroProfile Health API is visible, so applications
 * without it never load this class. Built with {@link HealthCheckResponse}'s constructor rather than its
 * builder, which needs the server's provider. Application-scoped and thread-safe.
 */
@Readiness
@ApplicationScoped
@DiscoverableInSluiceCore
public class SluiceRedisHealthCheck implements HealthCheck {

    /** The check's name. */
    public static final String NAME = "sluice-redis";

    @Inject
    SluiceExtension extension;

    @Override
    public HealthCheckResponse call() {
        SluiceRuntime runtime;
        try {
            runtime = extension.runtime();
        } catch (SluiceException notRunning) {
            return new HealthCheckResponse(NAME, HealthCheckResponse.Status.DOWN,
                    Optional.of(Map.of("error", notRunning.getMessage())));
        }
        RedisProbe.Result result = RedisProbe.probe(runtime.redis(), runtime.config().redis(), runtime.metrics().redis());
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("mode", result.mode());
        data.put("app", runtime.metrics().app());
        result.error().ifPresent(error -> data.put("error", error));
        return new HealthCheckResponse(NAME, result.up() ? HealthCheckResponse.Status.UP : HealthCheckResponse.Status.DOWN,
                Optional.of(data));
    }
}
