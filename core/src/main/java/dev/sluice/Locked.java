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
 * <p>The interceptor runs at {@code Interceptor.Priority.PLATFORM_BEFORE + 90}, outside {@code @Bounded}
 * ({@code + 100}: a caller waiting for the lock holds no permit) and {@code @Transactional}. A transaction
 * still running when the method returns (an EJB's container-managed one, the caller's) is waited for: the lock
 * is released after it commits or rolls back. Reentrant for the
 * same thread; the lease is renewed while the method runs. Enabled application-wide without
 * {@code beans.xml} changes. On a type, it applies to every business method; on a method, it wins over
 * the type's.
 *
 * <p>The rendered key is the lock key of {@link Sluice#lock(String)}. When the lock is not acquired
 * within {@link #maxWait()} (or Redis is unreachable) the method does not run and
 * {@link LockNotAcquiredException} is thrown. An invalid template or duration fails deployment with
 * {@link SluiceConfigException} naming {@code class#method}, e.g.
 * {@code Invalid @Locked.lease on com.example.Orders#settle(Order): ...}. Annotations are read once, at
 * deployment, as the CDI container sees them (including those another portable extension added).
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
     * Key template. {@code {0}} is the first parameter, {@code {orderId}} a parameter by name (compile
     * with {@code -parameters}); either may be followed by a property path, {@code {0.id}} or
     * {@code {order.customer.id}}, each step a record component, a getter ({@code getId()}, {@code isPaid()})
     * or a public field. Default: the lock name (one lock for the method).
     *
     * <p>Checked at deployment, which fails naming class, method and placeholder when a parameter or
     * property does not exist, or when a placeholder's type would render by object identity, since two
     * equal arguments would then lock two different keys: arrays, and types with no {@code toString()}
     * below {@code Object}. An interface or abstract type counts by what it declares, not by what its
     * implementations might add: an interface qualifies only if it redeclares {@code String toString()};
     * otherwise use a property path. Two placeholders must be separated by text starting with a punctuation
     * mark ({@code "{0}:{1}"}).
     *
     * <p>A {@code null} argument, or a {@code null} along a property path, fails the call with
     * {@link IllegalArgumentException} before any lock is taken. With one placeholder the value is rendered
     * as it is ({@code "order:{0}"} gives the key of {@code Sluice.lock("order:" + id)}); with several, each
     * value's {@code %} and separator characters are written as {@code %XX}, so that different argument
     * lists never give the same key.
     *
     * @return the key template
     */
    @Nonbinding
    String key() default "";

    /**
     * Lease as a positive duration ({@code 30s}, {@code PT30S}); override with
     * {@code sluice.lock.<name>.lease}. Default {@code 30s}.
     *
     * @return the lease
     */
    @Nonbinding
    String lease() default "30s";

    /**
     * Maximum wait, zero or positive; {@code 0} tries once. Override with {@code sluice.lock.<name>.max-wait}.
     * Default {@code 5s}.
     *
     * @return the maximum wait
     */
    @Nonbinding
    String maxWait() default "5s";

    /** {@return name for {@code sluice.lock.<name>.*} overrides and metrics; default {@code <SimpleClassName>.<method>}} */
    @Nonbinding
    String name() default "";

    /**
     * What happens when the lease was lost while the method ran (the watchdog could not renew it, or
     * the JVM stalled for longer than the lease): by default the method's result is discarded and
     * {@link LockLostException} is thrown after it returns, because another holder may have run at the
     * same time. {@link OnLost#LOG} returns the result and logs a warning instead, for methods whose
     * writes are already protected by fencing tokens.
     *
     * @return what to do after a lost lease
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
