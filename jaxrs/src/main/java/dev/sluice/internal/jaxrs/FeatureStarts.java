package dev.sluice.internal.jaxrs;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The application class loaders in which a JAX-RS runtime configured {@code RateLimitFeature}, for
 * {@link UnregisteredFeatureCheck}. Free of servlet types, because the feature records here on every runtime,
 * servlet or not. Weak keys: an undeployed application's loader is not held. Thread-safe.
 */
public final class FeatureStarts {

    private static final Map<ClassLoader, Boolean> STARTED = Collections.synchronizedMap(new WeakHashMap<>());

    private FeatureStarts() {
    }

    /** Records that the feature was configured for the application of {@code loader}. */
    public static void started(ClassLoader loader) {
        STARTED.put(loader, Boolean.TRUE);
    }

    /** Whether the feature was configured for the application of {@code loader}. */
    static boolean startedIn(ClassLoader loader) {
        return STARTED.containsKey(loader);
    }
}
