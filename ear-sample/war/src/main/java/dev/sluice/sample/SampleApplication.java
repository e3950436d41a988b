package dev.sluice.sample;

import java.util.Set;

import dev.sluice.jaxrs.RateLimitFeature;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/**
 * The sample's JAX-RS application, under {@code /api}.
 *
 * <p>It lists its classes, Sluice's {@link RateLimitFeature} among them: when the Sluice JARs sit in
 * an EAR's {@code lib/}, JAX-RS does not scan them for providers, so the feature has to be named.
 */
@ApplicationPath("/api")
public class SampleApplication extends Application {

    @Override
    public Set<Class<?>> getClasses() {
        return Set.of(
                GreetingResource.class,
                AccountResource.class,
                StatusResource.class,
                ConcertResource.class,
                BoxOfficeResource.class,
                RenderResource.class,
                SignInResource.class,
                CatalogResource.class,
                ExemptResource.class,
                CountersResource.class,
                RateLimitFeature.class);
    }
}
