package dev.sluice.internal.cdi;

import dev.sluice.Bounded;
import dev.sluice.Locked;
import dev.sluice.SluiceConfigException;
import dev.sluice.internal.config.ConfigProblems;
import dev.sluice.internal.config.Durations;
import dev.sluice.internal.config.LockSettings;
import dev.sluice.internal.config.SluiceConfig;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * The {@code @Locked} and {@code @Bounded} methods of one application, each parsed once at deployment into a
 * {@link LockGuard} or {@link BoundGuard} with the {@code sluice.lock.<name>.*} /
 * {@code sluice.semaphore.<name>.*} overrides applied: what the interceptors look up on every call. Built by
 * {@link SluiceExtension} from the annotated types and beans the container announces (so annotations added by
 * other portable extensions count, and a method inherited from a superclass belongs to each bean class that
 * inherits it); a method's own annotation wins over its class's.
 *
 * <p>A method is found by its bean class and its name and parameter types, whichever class declares it, so
 * the {@code Method} a container passes (the bean class's, a superclass's, its own subclass's) all find it.
 * Thread-safe; immutable but for guards built at the first call of a method the container never announced
 * (an instance wrapped by {@code InterceptionFactory}), from its reflective annotations.
 */
final class GuardedMethods {

    /** A {@code @Locked} method, with configuration overrides applied. */
    record LockGuard(String name, KeyTemplate key, Duration lease, Duration maxWait, Locked.OnLost onLost) {

        LockGuard with(LockSettings overrides) {
            return new LockGuard(name, key, overrides.lease().orElse(lease), overrides.maxWait().orElse(maxWait), onLost);
        }
    }

    /** A {@code @Bounded} method, with configuration overrides applied. */
    record BoundGuard(String name, int permits, Duration lease, Duration maxWait) {

        BoundGuard with(LockSettings overrides) {
            return new BoundGuard(name, overrides.permits().orElse(permits), overrides.lease().orElse(lease),
                    overrides.maxWait().orElse(maxWait));
        }
    }

    /** Where a guard applies: a bean class and a method signature. */
    private record Site(Class<?> beanClass, String method, List<Class<?>> parameterTypes) {

        static Site of(Class<?> beanClass, Method method) {
            return new Site(beanClass, method.getName(), List.of(method.getParameterTypes()));
        }
    }

    /** No guarded method; answers only for methods it builds at their first call. */
    static final GuardedMethods NONE = new GuardedMethods(Map.of(), Map.of(), null);

    private final Map<Site, LockGuard> locks;
    private final Map<Site, BoundGuard> bounds;
    private final SluiceConfig config;
    private final Map<Site, LockGuard> unannouncedLocks = new ConcurrentHashMap<>();
    private final Map<Site, BoundGuard> unannouncedBounds = new ConcurrentHashMap<>();

    private GuardedMethods(Map<Site, LockGuard> locks, Map<Site, BoundGuard> bounds, SluiceConfig config) {
        this.locks = Map.copyOf(locks);
        this.bounds = Map.copyOf(bounds);
        this.config = config;
    }

    /**
     * The guard of {@code method} called on a bean of {@code beanClass}.
     *
     * @throws IllegalStateException when the method carries no {@code @Locked}, which the interceptor binding
     *                               rules out
     */
    LockGuard lock(Class<?> beanClass, Method method) {
        Site site = Site.of(beanClass, method);
        LockGuard guard = locks.get(site);
        if (guard != null) {
            return guard;
        }
        return unannouncedLocks.computeIfAbsent(site, s -> {
            Locked locked = annotation(beanClass, method, Locked.class);
            return overridden(lockGuard(beanClass, method, locked));
        });
    }

    /** The guard of {@code method} called on a bean of {@code beanClass}; see {@link #lock}. */
    BoundGuard bound(Class<?> beanClass, Method method) {
        Site site = Site.of(beanClass, method);
        BoundGuard guard = bounds.get(site);
        if (guard != null) {
            return guard;
        }
        return unannouncedBounds.computeIfAbsent(site, s -> {
            Bounded bounded = annotation(beanClass, method, Bounded.class);
            return overridden(boundGuard(beanClass, method, bounded));
        });
    }

    /** The method's own annotation, else its bean class's (inherited ones included), else its declaring class's. */
    private static <A extends Annotation> A annotation(Class<?> beanClass, Method method, Class<A> type) {
        A annotation = method.getAnnotation(type);
        if (annotation == null) {
            annotation = beanClass.getAnnotation(type);
        }
        if (annotation == null) {
            annotation = method.getDeclaringClass().getAnnotation(type);
        }
        if (annotation == null) {
            throw new IllegalStateException("@" + type.getSimpleName() + " interceptor called for "
                    + describe(beanClass, method) + ", which carries no @" + type.getSimpleName());
        }
        return annotation;
    }

    private LockGuard overridden(LockGuard guard) {
        return config == null ? guard : guard.with(config.lock(guard.name()));
    }

    private BoundGuard overridden(BoundGuard guard) {
        return config == null ? guard : guard.with(config.semaphore(guard.name()));
    }

    /** The lock names of every announced {@code @Locked} method, sorted. */
    Set<String> lockNames() {
        return locks.values().stream().map(LockGuard::name).collect(Collectors.toCollection(TreeSet::new));
    }

    /** The semaphore names of every announced {@code @Bounded} method, sorted. */
    Set<String> semaphoreNames() {
        return bounds.values().stream().map(BoundGuard::name).collect(Collectors.toCollection(TreeSet::new));
    }

    /** Collects the guarded methods of the beans of one deployment; not thread-safe (observers run one at a time). */
    static final class Builder {

        private final Map<Site, LockGuard> locks = new HashMap<>();
        private final Map<Site, BoundGuard> bounds = new HashMap<>();

        /**
         * Parses the effective annotations of one business method of a bean.
         *
         * @param locked  the method's {@code @Locked}, else its bean type's, else null
         * @param bounded the same for {@code @Bounded}
         * @return every problem found, each naming the member and {@code class#method}; empty when all is well
         */
        List<SluiceConfigException> add(Class<?> beanClass, Method method, Locked locked, Bounded bounded) {
            List<SluiceConfigException> problems = new ArrayList<>();
            Site site = Site.of(beanClass, method);
            if (locked != null) {
                try {
                    locks.put(site, lockGuard(beanClass, method, locked));
                } catch (SluiceConfigException e) {
                    problems.add(e);
                }
            }
            if (bounded != null) {
                try {
                    bounds.put(site, boundGuard(beanClass, method, bounded));
                } catch (SluiceConfigException e) {
                    problems.add(e);
                }
            }
            return problems;
        }

        /** The model with {@code config}'s overrides applied to every guard. */
        GuardedMethods build(SluiceConfig config) {
            Map<Site, LockGuard> l = new HashMap<>();
            locks.forEach((site, guard) -> l.put(site, guard.with(config.lock(guard.name()))));
            Map<Site, BoundGuard> b = new HashMap<>();
            bounds.forEach((site, guard) -> b.put(site, guard.with(config.semaphore(guard.name()))));
            return new GuardedMethods(l, b, config);
        }
    }

    /** @throws SluiceConfigException naming the member, {@code class#method} and what is wrong */
    static LockGuard lockGuard(Class<?> beanClass, Method method, Locked locked) {
        String described = describe(beanClass, method);
        String where = " on " + described;
        String name = locked.name().isBlank() ? beanClass.getSimpleName() + "." + method.getName() : locked.name().trim();
        KeyTemplate key;
        if (locked.key().isEmpty()) {
            key = KeyTemplate.constant(name);
        } else {
            try {
                key = KeyTemplate.compile(locked.key(), method, described);
            } catch (IllegalArgumentException e) {
                throw ConfigProblems.onMethod("@Locked.key", where, '"' + locked.key() + "\": " + e.getMessage());
            }
        }
        Duration lease = duration("@Locked.lease", where, locked.lease(), false);
        Duration maxWait = duration("@Locked.maxWait", where, locked.maxWait(), true);
        return new LockGuard(name, key, lease, maxWait, locked.onLost());
    }

    /** @throws SluiceConfigException naming the member, {@code class#method} and what is wrong */
    static BoundGuard boundGuard(Class<?> beanClass, Method method, Bounded bounded) {
        String where = " on " + describe(beanClass, method);
        if (bounded.value().isBlank()) {
            throw ConfigProblems.onMethod("@Bounded.value", where, '"' + bounded.value() + "\" is blank; expected"
                    + " the name of the semaphore");
        }
        if (bounded.permits() < 1) {
            throw ConfigProblems.onMethod("@Bounded.permits", where, bounded.permits() + " is lower than 1; expected"
                    + " 1 or more permits");
        }
        Duration lease = duration("@Bounded.lease", where, bounded.lease(), false);
        Duration maxWait = duration("@Bounded.maxWait", where, bounded.maxWait(), true);
        return new BoundGuard(bounded.value().trim(), bounded.permits(), lease, maxWait);
    }

    /** A lease ({@code zeroAllowed} false) or a maximum wait; a bad one as "Invalid @Locked.lease on X#m(): ...". */
    private static Duration duration(String member, String where, String value, boolean zeroAllowed) {
        try {
            return zeroAllowed ? Durations.parseWait(member, value) : Durations.parseLease(member, value);
        } catch (SluiceConfigException e) {
            throw ConfigProblems.onMethod(member, where, e);
        }
    }

    /** {@code com.example.Orders#buy(long, int)}. */
    static String describe(Class<?> beanClass, Method method) {
        return beanClass.getName() + "#" + method.getName() + Arrays.stream(method.getParameterTypes())
                .map(Class::getSimpleName).collect(Collectors.joining(", ", "(", ")"));
    }
}
