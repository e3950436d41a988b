package dev.sluice.internal.cdi;

import jakarta.enterprise.inject.Default;
import jakarta.enterprise.inject.spi.Annotated;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.InjectionPoint;

import java.lang.annotation.Annotation;
import java.lang.reflect.Member;
import java.lang.reflect.Type;
import java.util.Set;

/**
 * The injection point through which Sluice asks the container for a registry bean (MicroProfile Metrics,
 * Micrometer): a plain {@code @Inject T} without annotations. Producers that read the point they serve (Payara's
 * and SmallRye's {@code MetricRegistryProducer} look for {@code @RegistryScope} on it, and without one give the
 * application registry) fail without one, which {@code BeanManager.getReference} does not give them. Immutable.
 */
final class LookupPoint implements InjectionPoint {

    private final Class<?> type;

    LookupPoint(Class<?> type) {
        this.type = type;
    }

    @Override
    public Type getType() {
        return type;
    }

    @Override
    public Set<Annotation> getQualifiers() {
        return Set.of(Default.Literal.INSTANCE);
    }

    @Override
    public Bean<?> getBean() {
        return null;
    }

    @Override
    public Member getMember() {
        return null;
    }

    @Override
    public Annotated getAnnotated() {
        return new Annotated() {
            @Override
            public Type getBaseType() {
                return type;
            }

            @Override
            public Set<Type> getTypeClosure() {
                return Set.of(type, Object.class);
            }

            @Override
            public <T extends Annotation> T getAnnotation(Class<T> annotationType) {
                return null;
            }

            @Override
            public <T extends Annotation> Set<T> getAnnotations(Class<T> annotationType) {
                return Set.of();
            }

            @Override
            public Set<Annotation> getAnnotations() {
                return Set.of();
            }

            @Override
            public boolean isAnnotationPresent(Class<? extends Annotation> annotationType) {
                return false;
            }
        };
    }

    @Override
    public boolean isDelegate() {
        return false;
    }

    @Override
    public boolean isTransient() {
        return false;
    }

    @Override
    public String toString() {
        return "Sluice's lookup of " + type.getName();
    }
}
