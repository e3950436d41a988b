package dev.sluice.jaxrs;

import jakarta.ws.rs.core.Application;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/** An application that lists its classes, as users who add {@link RateLimitFeature} to {@code getClasses()} do. */
final class TestApplication extends Application {

    private final Set<Class<?>> classes = new LinkedHashSet<>();
    private final Map<String, Object> properties = new LinkedHashMap<>();

    TestApplication(Class<?>... classes) {
        this.classes.addAll(Set.of(classes));
    }

    TestApplication property(String name, String value) {
        properties.put(name, value);
        return this;
    }

    TestApplication properties(Map<String, String> values) {
        properties.putAll(values);
        return this;
    }

    @Override
    public Set<Class<?>> getClasses() {
        return classes;
    }

    @Override
    public Map<String, Object> getProperties() {
        return properties;
    }
}
