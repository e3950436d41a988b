package dev.sluice.internal.cdi;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** A Micrometer registry bean, as WildFly's Micrometer subsystem or an application's own producer offers one. */
public class MeterRegistryProducer {

    static final SimpleMeterRegistry REGISTRY = new SimpleMeterRegistry();

    @Produces
    @Singleton
    MeterRegistry registry() {
        return REGISTRY;
    }
}
