package dev.sluice.internal.cdi;

import dev.sluice.Bounded;
import dev.sluice.Locked;
import dev.sluice.SluiceConfigException;
import dev.sluice.internal.config.Durations;
import dev.sluice.internal.config.LockSettings;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Reads {@code @Locked} and {@code @Bounded} of a bean method into validated specs: at deployment (to fail
 * it on a bad template or duration, naming {@code class#method}) and once per method at the first
 * invocation (to build its cached policy). A method's own annotation wins over its class's. Stateless.
 */
final class GuardedMethods {

    /** A {@code @Locked} method as declared, before config overrides. */
    record LockSpec(String name, KeyTemplate key, Duration lease, Duration maxWait, Locked.OnLost onLost) {

        /** The spec with {@code sluice.lock.<name>.*} applied. */
        LockSpec with(LockSettings overrides) {
            return new LockSpec(name, key, overrides.lease().orElse(lease), overrides.maxWait().orElse(maxWait), onLost);
        }
    }

    /** A {@code @Bounded} method as declared, before config overrides. */
    record BoundSpec(String name, int permits, Duration lease, Duration maxWait) {

        /** The spec with {@code sluice.semaphore.<name>.*} applied. */
        BoundSpec with(LockSettings overrides) {
            return new BoundSpec(name, overrides.permits().orElse(permits), overrides.lease().orElse(lease),
                    overrides.maxWait().orElse(maxWait));
        }
    }

    private GuardedMethods() {
    }

    static Locked locked(Class<?> beanClass, Method method) {
        Locked own = method.getAnnotation(Locked.class);
        return own != null ? own : beanClass.getAnnotation(Locked.class);
    }

    static Bounded bounded(Class<?> beanClass, Method method) {
        Bounded own = method.getAnnotation(Bounded.class);
        return own != null ? own : beanClass.getAnnotation(Bounded.class);
    }

    /** @throws SluiceConfigException naming the member, {@code class#method} and what is wrong */
    static LockSpec lockSpec(Class<?> beanClass, Method method, Locked locked) {
        String where = " on " + describe(beanClass, method);
        String name = locked.name().isBlank() ? beanClass.getSimpleName() + "." + method.getName() : locked.name().trim();
        KeyTemplate key;
        if (locked.key().isEmpty()) {
            key = KeyTemplate.constant(name);
        } else {
            try {
                key = KeyTemplate.compile(locked.key(), method);
            } catch (IllegalArgumentException e) {
                throw new SluiceConfigException("@Locked.key", "Invalid @Locked.key" + where + ": \""
                        + locked.key() + "\": " + e.getMessage());
            }
        }
        Duration lease = Durations.parse("@Locked.lease" + where, locked.lease());
        Duration maxWait = Durations.parseNonNegative("@Locked.maxWait" + where, locked.maxWait());
        return new LockSpec(name, key, lease, maxWait, locked.onLost());
    }

    /** @throws SluiceConfigException naming the member, {@code class#method} and what is wrong */
    static BoundSpec boundSpec(Class<?> beanClass, Method method, Bounded bounded) {
        String where = " on " + describe(beanClass, method);
        if (bounded.value().isBlank()) {
            throw new SluiceConfigException("@Bounded.value", "Invalid @Bounded.value" + where
                    + ": the semaphore name must not be empty");
        }
        if (bounded.permits() < 1) {
            throw new SluiceConfigException("@Bounded.permits", "Invalid @Bounded.permits" + where + ": "
                    + bounded.permits() + " is lower than 1");
        }
        Duration lease = Durations.parse("@Bounded.lease" + where, bounded.lease());
        Duration maxWait = Durations.parseNonNegative("@Bounded.maxWait" + where, bounded.maxWait());
        return new BoundSpec(bounded.value().trim(), bounded.permits(), lease, maxWait);
    }

    /** Every problem of every guarded business method of {@code beanClass}; empty when all is well. */
    static List<SluiceConfigException> validate(Class<?> beanClass) {
        List<SluiceConfigException> problems = new ArrayList<>();
        for (Method method : businessMethods(beanClass)) {
            Locked locked = locked(beanClass, method);
            if (locked != null) {
                try {
                    lockSpec(beanClass, method, locked);
                } catch (SluiceConfigException e) {
                    problems.add(e);
                }
            }
            Bounded bounded = bounded(beanClass, method);
            if (bounded != null) {
                try {
                    boundSpec(beanClass, method, bounded);
                } catch (SluiceConfigException e) {
                    problems.add(e);
                }
            }
        }
        return problems;
    }

    /**
     * Adds the lock names of the {@code @Locked} methods and the semaphore names of the {@code @Bounded}
     * methods of {@code beanClass} (names as the interceptors will use them); invalid ones are skipped,
     * {@link #validate} reports them.
     */
    static void collectNames(Class<?> beanClass, Set<String> lockNames, Set<String> semaphoreNames) {
        for (Method method : businessMethods(beanClass)) {
            Locked locked = locked(beanClass, method);
            Bounded bounded = bounded(beanClass, method);
            try {
                if (locked != null) {
                    lockNames.add(lockSpec(beanClass, method, locked).name());
                }
                if (bounded != null) {
                    semaphoreNames.add(boundSpec(beanClass, method, bounded).name());
                }
            } catch (SluiceConfigException invalid) {
                // Reported by validate(); the deployment fails anyway.
            }
        }
    }

    /** Whether the class or any of its methods (declared or inherited) carries a binding. */
    static boolean isGuarded(Class<?> beanClass) {
        if (beanClass.isAnnotationPresent(Locked.class) || beanClass.isAnnotationPresent(Bounded.class)) {
            return true;
        }
        for (Class<?> c = beanClass; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (m.isAnnotationPresent(Locked.class) || m.isAnnotationPresent(Bounded.class)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Methods an interceptor can wrap: non-private, non-static, declared in the class or a superclass. */
    private static List<Method> businessMethods(Class<?> beanClass) {
        List<Method> methods = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (Class<?> c = beanClass; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                int mod = m.getModifiers();
                if (Modifier.isPrivate(mod) || Modifier.isStatic(mod) || m.isSynthetic() || m.isBridge()) {
                    continue;
                }
                if (seen.add(m.getName() + Arrays.toString(m.getParameterTypes()))) {
                    methods.add(m);
                }
            }
        }
        return methods;
    }

    /** {@code com.example.Orders#buy(long, int)}. */
    static String describe(Class<?> beanClass, Method method) {
        return beanClass.getName() + "#" + method.getName() + Arrays.stream(method.getParameterTypes())
                .map(Class::getSimpleName).collect(Collectors.joining(", ", "(", ")"));
    }

    /**
     * The bean class behind a container's subclass or proxy of it (Weld's {@code ...$$_WeldSubclass},
     * OpenWebBeans' {@code ...$$OwbInterceptProxy0}), so that default names use the class the user wrote.
     */
    static Class<?> unproxied(Class<?> runtimeClass) {
        Class<?> c = runtimeClass;
        while ((c.isSynthetic() || c.getName().contains("$$")) && c.getSuperclass() != null
                && c.getSuperclass() != Object.class) {
            c = c.getSuperclass();
        }
        return c;
    }
}
