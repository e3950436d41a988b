package dev.sluice.internal.cdi;

import dev.sluice.Bounded;
import dev.sluice.LockLostException;
import dev.sluice.Permit;
import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Intercepted;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

import java.lang.reflect.Method;

/**
 * Runs a {@code @Bounded} method while holding a permit of its distributed semaphore, outside
 * {@code @Transactional} like {@link LockedInterceptor}; a transaction still running when the method returns
 * returns the permit when it completes. The method does not run without a permit; a permit
 * whose lease was lost while the method ran is reported with {@link LockLostException} after it returns
 * (attached as suppressed when the method threw).
 */
@Bounded("")
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 100)
public class BoundedInterceptor {

    @Inject
    SluiceExtension extension;

    /** The bean whose method is called; null where a container cannot tell (then the method's declaring class). */
    @Inject
    @Intercepted
    Bean<?> intercepted;

    @AroundInvoke
    Object aroundInvoke(InvocationContext invocation) throws Exception {
        Method method = invocation.getMethod();
        GuardedMethods.BoundGuard policy = extension.guardedMethods().bound(HeldCall.beanClass(intercepted, method),
                method);
        Permit permit = extension.runtime().locks().semaphore(policy.name(), policy.permits())
                .acquire(policy.lease(), policy.maxWait());
        return HeldCall.proceed(invocation, () -> release(permit), lost -> {
            throw lost;
        });
    }

    private static LockLostException release(Permit permit) {
        boolean held = permit.isHeld();
        try {
            permit.close();
        } catch (LockLostException e) {
            return e;
        }
        return held ? null : new LockLostException(permit.name(), "A permit of semaphore '" + permit.name()
                + "' lost its lease while the method ran; more holders than permits may have run at once");
    }
}
