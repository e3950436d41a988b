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
 * {@code beans.xml} changes.
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
}
