package dev.sluice.internal.cdi;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Default;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.inject.spi.InjectionPoint;
import org.jboss.weld.junit5.EnableWeld;
import org.jboss.weld.junit5.WeldInitiator;
import org.jboss.weld.junit5.WeldSetup;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Objects;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A registry whose producer reads the injection point it serves, as Payara 6's {@code MetricRegistryProducer}
 * (and SmallRye's) does to pick the registry scope: Sluice asks for it through an injection point of its own, so
 * the producer has one to read, and Sluice's metrics reach that registry.
 */
@EnableWeld
class RegistryFromInjectionPointTest {

    /** Produces the registry only for an injection point, as the servers' producers do. */
    @ApplicationScoped
    public static class ReadingProducer {

        static final SimpleMeterRegistry REGISTRY = new SimpleMeterRegistry();

        @Produces
        @Default
        MeterRegistry registry(InjectionPoint injectionPoint) {
            Objects.requireNonNull(injectionPoint.getAnnotated(), "the injection point's annotated element");
            return REGISTRY;
        }
    }

    private final SluiceExtension extension = new SluiceExtension(cl -> TestConfigs.of(Map.of(
            "sluice.limit.api.rate", "5/1m")));

    @WeldSetup
    WeldInitiator weld = WeldInitiator.from(WeldInitiator.createWeld()
                    .addBeanClasses(ReadingProducer.class)
                    .addExtension(extension))
            .build();

    @Test
    void sluiceMetricsReachARegistryWhoseProducerReadsItsInjectionPoint() {
        String app = extension.runtime().metrics().app();

        assertThat(ReadingProducer.REGISTRY.getMeters()).as("Sluice's meters in the produced registry")
                .anyMatch(m -> app.equals(m.getId().getTag("app")));
    }
}
