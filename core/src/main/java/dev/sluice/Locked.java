package dev.sluice;

import jakarta.enterprise.util.Nonbinding;
import jakarta.interceptor.InterceptorBinding;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated CDI bean method while holding a distributed lock on the rendered {@link #key()}.
 *
 * <p>The interceptor runs at {@code Interceptor.Priority.PLATFORM_BEFORE + 100}, outside
 * {@code @Transactional}, so the lock is released after the transaction commits. Reentrant for the
 * same thread; the lease is renewed while the method runs. Enabled application-wide without
 * {@code beans.xml} changes. On a type, it applies to every business method; on a method, it wins over
 * the type's.
 *
 * <p>The rendered key is the lock key of {@link Sluice#lock(String)}. When the lock is not acquired
 * within {@link #maxWait()} (or Redis is unreachable) the method does not run and
 * {@link LockNotAcquiredException} is thrown. An invalid template or duration fails deployment with a
 * message naming {@code class#method}.
 *
 * @see DistributedLock
 */
@Inherited
@InterceptorBinding
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface Locked {

    /**
     * Key template: {@code {0}} is the first parameter, {@code {orderId}} a parameter by name (compile
     * with {@code -parameters}). Validated at deployment. Default: the lock name.
     */
    @Nonbinding
    String key() default "";

    /** Lease as a duration ({@code 30s}, {@code PT30S}); override with {@code sluice.lock.<name>.lease}. */
    @Nonbinding
    String lease() default "30s";

    /** Maximum wait; override with {@code sluice.lock.<name>.max-wait}. {@code 0} tries once. */
    @Nonbinding
    String maxWait() default "5s";

    /** Name for {@code sluice.lock.<name>.*} overrides and metrics; default {@code <SimpleClassName>.<method>}. */
    @Nonbinding
    String name() default "";

    /**
     * What happens when the lease was lost while the method ran (the watchdog could not renew it, or
     * the JVM stalled for longer than the lease): by default the method's result is discarded and
     * {@link LockLostException} is thrown after it returns, because another holder may have run at the
     * same time. {@link OnLost#LOG} returns the result and logs a warning instead, for methods whose
     * writes are already protected by fencing tokens.
     */
    @Nonbinding
    OnLost onLost() default OnLost.THROW;

    /** What the {@code @Locked} interceptor does after the method when the lease was lost. */
    enum OnLost {
        /** Throw {@link LockLostException} after the method (its result is discarded). The default. */
        THROW,
        /** Log a warning and return the method's result. */
        LOG
    }
}
