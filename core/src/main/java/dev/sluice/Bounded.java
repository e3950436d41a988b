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
 * At most {@link #permits()} concurrent executions of the annotated CDI bean method(s) across all nodes
 * sharing the Redis, guarded by the distributed semaphore {@link #value()}.
 *
 * <p>Runs at {@code Interceptor.Priority.PLATFORM_BEFORE + 100}, inside {@code @Locked} ({@code + 90}) and outside
 * {@code @Transactional}; a transaction still running when the method returns (an EJB's, the caller's) returns
 * the permit when it commits or rolls back. When no
 * permit is free within {@link #maxWait()} (or Redis is unreachable) the method does not run and
 * {@link PermitNotAcquiredException} is thrown; when the permit's lease was lost while the method ran,
 * {@link LockLostException} is thrown after it. Invalid values fail deployment with
 * {@link SluiceConfigException} naming {@code class#method}, e.g.
 * {@code Invalid @Bounded.permits on com.example.Reports#render(): 0 is lower than 1}. On a type, it applies to
 * every business method; on a method, it wins over the type's. Annotations are read once, at deployment.
 *
 * @see DistributedSemaphore
 */
@Inherited
@InterceptorBinding
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface Bounded {

    /** {@return semaphore name, not blank; also the {@code sluice.semaphore.<name>.*} override prefix} */
    @Nonbinding
    String value();

    /** {@return permits, at least 1; override with {@code sluice.semaphore.<name>.permits}. Default 1} */
    @Nonbinding
    int permits() default 1;

    /** {@return lease of a permit, a positive duration; override with {@code sluice.semaphore.<name>.lease}. Default {@code 60s}} */
    @Nonbinding
    String lease() default "60s";

    /**
     * Maximum wait for a permit, zero (try once) or positive; override with
     * {@code sluice.semaphore.<name>.max-wait}. Default {@code 10s}.
     *
     * @return the maximum wait
     */
    @Nonbinding
    String maxWait() default "10s";
}
